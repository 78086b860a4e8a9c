package session

// Exported for the external tests.
var RemoteBootstrap = remoteBootstrap

const MaxBootstrap = maxBootstrap
