package ops

// ServerURLScheme prefixes the URL that a spec sees for a builtin server
// ("specrun-server://NAME"): its port is chosen when the run starts, so the
// http op resolves the name through Env.Server at run time.
const ServerURLScheme = "specrun-server://"
