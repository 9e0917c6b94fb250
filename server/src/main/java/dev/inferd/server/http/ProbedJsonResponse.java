package dev.inferd.server.http;

import dev.inferd.server.openai.WireJson;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A non-streamed 200 JSON response that can be started early, as a probe of a client that sent a FIN
 * (see {@link ClientWatch}): the status and headers go out with one space, which JSON allows before
 * a value, and each later probe adds one more. The body follows when it is ready. Until a probe
 * happens nothing is sent, so an error can still get its own status. Probes come from another thread
 * than the request's, hence the lock.
 */
final class ProbedJsonResponse implements ClientWatch.Probe {

    private final ServerResponse response;
    private OutputStream out;

    private ProbedJsonResponse(ServerResponse response) {
        this.response = response;
    }

    /** The answer to {@code response}, registered with {@code client} so that its probes start it early. */
    static ProbedJsonResponse probedBy(ClientWatch client, ServerResponse response) {
        ProbedJsonResponse answer = new ProbedJsonResponse(response);
        client.probeWith(answer);
        return answer;
    }

    @Override
    public synchronized void probe() {
        write(new byte[]{' '}, false);
    }

    /** Sends the whole body: in one go when nothing was sent yet, else after the probes' spaces. */
    synchronized void send(Object body) {
        if (out == null) {
            JsonExchange.send(response, 200, body);
        } else {
            byte[] json = WireJson.bytes(body);
            response.settle(); // before the body, not just before the stream's end: the body alone is the answer
            write(json, true);
        }
    }

    private void write(byte[] bytes, boolean last) {
        try {
            if (out == null) {
                response.status(200);
                response.header("Content-Type", JsonExchange.JSON);
                out = response.outputStream();
            }
            out.write(bytes);
            if (last) {
                out.close();
            } else {
                out.flush();
            }
        } catch (IOException | RuntimeException e) {
            throw new ClientGoneException(e);
        }
    }
}
