package dev.inferd.server.conversation;

/** Why a choice ended, in the terms every protocol maps onto its own. */
public enum StopReason {
    /** The model ended its turn (or a stop sequence matched). */
    STOP,
    /** The output cap or the context's end was reached. */
    LENGTH,
    /** The model ended its turn after calling tools. */
    TOOL_CALLS
}
