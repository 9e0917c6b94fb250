package dev.inferd.engine.chat.output;

/**
 * The output is inside a tool call: from its opening marker (or the start of a reply that is a
 * JSON call) to the end of the last call there.
 *
 * @param index the number of the call being written (or next to be written, between calls of a list)
 * @param name its function, or null while not yet known
 * @param text what was generated since the opening marker (the marker excluded), so that a grammar
 *             started at the marker can be advanced over it
 */
public record OpenCall(int index, String name, String text) {
}
