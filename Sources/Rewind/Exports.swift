// Apps import `Rewind` alone: the recorder, sinks and recordings (RewindRecorder) and JSON values
// (metadata, jumps from the inspector) come with it.
@_exported import RewindRecorder
@_exported import RewindJSON
