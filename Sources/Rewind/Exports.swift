// Apps import `Rewind` alone: JSON values (metadata, jumps from the inspector) come with it.
@_exported import RewindJSON
