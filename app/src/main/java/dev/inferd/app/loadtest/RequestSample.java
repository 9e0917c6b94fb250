package dev.inferd.app.loadtest;

import java.util.List;

/**
 * What one streamed request measured.
 *
 * @param error why it failed, or null
 * @param ttftNanos from sending the request to the first chunk with text; -1 when none came
 * @param interTokenNanos gaps between consecutive chunks with text (a chunk counts as one token)
 * @param tokens completion tokens: the usage chunk's count when the server sent one, else the chunks with text
 * @param nanos the whole request, to the end of the stream
 */
public record RequestSample(String error, long ttftNanos, List<Long> interTokenNanos, int tokens, long nanos) {

    static RequestSample failed(String error, long nanos) {
        return new RequestSample(error, -1, List.of(), 0, nanos);
    }

    public boolean ok() {
        return error == null;
    }
}
