package dev.inferd.server.http;

import dev.inferd.server.openai.WireJson;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A server-sent event stream as OpenAI's SDKs parse it: each event is one
 * {@code data: <compact JSON>} line and a blank line, flushed at once; chat and legacy completions
 * send no {@code event:} or {@code id:} lines and end with {@code data: [DONE]}; the Responses and
 * Messages APIs name each event ({@link #send(String, Object)}). Comment lines are the only
 * keep-alive every SDK tolerates.
 */
final class SseStream implements AutoCloseable {

    private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END_OF_EVENT = "\n\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII);

    private final OutputStream out;

    private SseStream(OutputStream out) {
        this.out = out;
    }

    /** Commits status 200 and the event-stream headers. */
    static SseStream open(ServerResponse response) {
        response.status(200);
        response.header("Content-Type", "text/event-stream; charset=utf-8");
        response.header("Cache-Control", "no-cache");
        // Keeps reverse proxies such as nginx from buffering the stream.
        response.header("X-Accel-Buffering", "no");
        return new SseStream(response.outputStream());
    }

    /** Sends one JSON event (Jackson escapes newlines, so the payload stays on one line). */
    void send(Object event) {
        byte[] json = WireJson.bytes(event);
        byte[] frame = new byte[DATA.length + json.length + END_OF_EVENT.length];
        System.arraycopy(DATA, 0, frame, 0, DATA.length);
        System.arraycopy(json, 0, frame, DATA.length, json.length);
        System.arraycopy(END_OF_EVENT, 0, frame, DATA.length + json.length, END_OF_EVENT.length);
        write(frame);
    }

    /**
     * Sends one JSON event under an {@code event:} name, as the Responses and Messages APIs frame
     * theirs (their SDKs dispatch on the name as well as on the data's {@code type}).
     */
    void send(String name, Object event) {
        byte[] head = ("event: " + name + "\n").getBytes(StandardCharsets.UTF_8);
        byte[] json = WireJson.bytes(event);
        byte[] frame = new byte[head.length + DATA.length + json.length + END_OF_EVENT.length];
        System.arraycopy(head, 0, frame, 0, head.length);
        System.arraycopy(DATA, 0, frame, head.length, DATA.length);
        System.arraycopy(json, 0, frame, head.length + DATA.length, json.length);
        System.arraycopy(END_OF_EVENT, 0, frame, head.length + DATA.length + json.length, END_OF_EVENT.length);
        write(frame);
    }

    void keepAlive() {
        write(KEEP_ALIVE);
    }

    /** The terminator; the caller then closes, which ends the response body. */
    void done() {
        write(DONE);
    }

    private void write(byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
        } catch (IOException | RuntimeException e) {
            // A closed connection, or a write blocked past the write timeout: the client can no longer be reached.
            throw new ClientGoneException(e);
        }
    }

    @Override
    public void close() {
        try {
            out.close();
        } catch (IOException | RuntimeException e) {
            // The client left after the last event; nothing is owed to it any more.
        }
    }
}
