// The types RewindRecorder's public API uses from Rewind's other modules come with it, and only
// those, so an app that imports RewindRecorder beside ReSwift or TCA sees no second `Store`:
// JSON values (states, actions, metadata) and, by name, the log's error and send site, and
// the command a handler of the app's own is given (`ServerSink.onCommand`). The wire's messages
// stay in RewindWire.
@_exported import RewindJSON
@_exported import struct RewindLog.LogError
@_exported import struct RewindLog.SendSite
@_exported import struct RewindWire.Command
