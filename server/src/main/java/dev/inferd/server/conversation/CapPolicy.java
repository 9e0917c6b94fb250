package dev.inferd.server.conversation;

/** What a client's output cap means when the context cannot hold it after the prompt. */
public enum CapPolicy {
    /** Chat completions: a 400 with both counts, as OpenAI answers. */
    REJECT,
    /** Responses and Messages: the cap is lowered to the room left; a reply that fills it ends for length. */
    CLAMP
}
