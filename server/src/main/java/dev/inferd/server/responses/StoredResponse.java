package dev.inferd.server.responses;

/**
 * A response kept for {@code GET /v1/responses/{id}}, its input items and follow-ups.
 *
 * @param response   the response object as JSON text
 * @param inputItems this request's input items (ids assigned) as a JSON array
 * @param context    every item a follow-up continues from (earlier turns, this input, this output) as a JSON array
 */
public record StoredResponse(String id, long createdAt, String response, String inputItems, String context) {

    /** Roughly what keeping it costs, for the in-memory store's byte bound. */
    public long size() {
        return 2L * (id.length() + response.length() + inputItems.length() + context.length()) + 64;
    }
}
