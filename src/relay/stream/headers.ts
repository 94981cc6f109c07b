// The stream: SPEC §8 (what the relay's Worker hands a stream's object with the request that makes or
// resumes it, in headers of its own that admission strips from every client's request).

/** The header through which the Worker hands a request's credential binding to the object (admission/bind.ts). */
export const BINDING_HEADER = "x-stream-binding";
/** The header through which the Worker hands the object the creating request's public URL. */
export const URL_HEADER = "x-relay-url";
/** The header that carries a stream's door settings (Open Responses') to its object and back (stream-object.ts keeps it). */
export const META_HEADER = "x-stream-meta";
/** The header through which the Worker asks a stream's object for a door's answer (door-answer.ts: its encoding's name and settings). */
export const DOOR_HEADER = "x-stream-door";
