package dev.inferd.server.cloud.workers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.inferd.server.http.ClientGoneException;
import dev.inferd.server.http.RequestHook;
import dev.inferd.server.http.ServerRequest;
import dev.inferd.server.http.ServerResponse;
import dev.inferd.server.http.Upstream;
import dev.inferd.server.openai.ApiError;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;

/**
 * The gateway's model routes: each request goes to a worker ({@link WorkerDirectory}, {@link RouteChooser}) and its
 * answer comes back through here, a stream event by event with back-pressure (the next event is read from the worker
 * only once the last one is written to the client).
 *
 * <ul>
 *   <li>A worker that cannot be reached, or fails before its answer's first byte reached the client, is left out and
 *       the request goes to another; one that answers 503 while it loads the model is asked again until
 *       {@code loadWait} is over.</li>
 *   <li>A stream the worker cuts ends with an {@code error} event (status 502) and no {@code [DONE]}, so no client
 *       takes a cut answer for a whole one; the client's departure closes the connection to the worker, which
 *       cancels the generation there.</li>
 *   <li>Usage: a stream always asks the worker for its usage chunk, reports the tokens to the request's
 *       {@link RequestHook} (the gateway's meter), and passes the chunk on only when the client asked for it. The
 *       final events wait for the response's barrier ({@link ServerResponse#settle}): the gateway's usage record is
 *       committed before the client can hold a whole answer, as for {@code cloud}.</li>
 * </ul>
 */
public final class WorkerProxy implements Upstream, AutoCloseable {

    /** The header that carries the shared secret a worker demands of every request. */
    public static final String SECRET_HEADER = "x-inferd-worker-secret";
    /** A draining worker's 503 says so in this header: the request goes to another worker at once. */
    public static final String DRAINING_HEADER = "x-inferd-draining";

    private static final System.Logger LOG = System.getLogger(WorkerProxy.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] CUT = ("data: {\"error\":{\"message\":\"The worker serving this request stopped before "
            + "the answer was complete. Retry the request.\",\"type\":\"" + ApiError.UNAVAILABLE
            + "\",\"param\":null,\"code\":502}}\n\n").getBytes(StandardCharsets.UTF_8);
    /** How long a request waits between two asks while its model loads on a worker. */
    private static final Duration LOAD_POLL = Duration.ofMillis(250);
    /** Workers one request may find failing before it gives up (the load wait bounds the rest). */
    private static final int MAX_FAILED_WORKERS = 8;

    private final WorkerDirectory directory;
    private final String secret;
    private final Duration loadWait;
    private final HttpClient http;

    /**
     * @param secret the workers' shared secret
     * @param loadWait how long a request waits for its model to load on a worker before a 503
     */
    public WorkerProxy(WorkerDirectory directory, String secret, Duration loadWait, Duration connectTimeout) {
        this.directory = directory;
        this.secret = secret;
        this.loadWait = loadWait;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(connectTimeout)
                .executor(Executors.newVirtualThreadPerTaskExecutor())
                .build();
    }

    @Override
    public void forward(String path, ServerRequest request, JsonNode body, ServerResponse response) throws InterruptedException {
        JsonNode modelField = body.get("model");
        String model = modelField != null && modelField.isTextual() ? modelField.asText() : "";
        RequestHook hook = RequestHook.of(request);
        if (!model.isEmpty()) hook.model(model); // a key whose scope excludes the model: 403 before any worker is asked
        boolean stream = body.path("stream").isBoolean() && body.path("stream").asBoolean();
        boolean clientWantsUsage = body.path("stream_options").path("include_usage").asBoolean(false);
        byte[] sent = bytes(stream && !clientWantsUsage ? withUsage(body) : body);
        String affinity = Affinity.of(request, body);
        long deadline = System.nanoTime() + loadWait.toNanos();
        Set<String> failed = new HashSet<>();
        while (true) {
            Optional<WorkerDirectory.Target> target = directory.choose(model, affinity, failed, loadWait);
            if (target.isEmpty() || failed.size() >= MAX_FAILED_WORKERS) {
                throw ApiError.noWorker(failed.isEmpty() ? "No worker is serving now. Please retry in a few seconds."
                        : "No worker could take the request now. Please retry in a few seconds.", 2);
            }
            var worker = target.get().worker();
            try (WorkerDirectory.Lease lease = directory.lease(worker.id())) {
                HttpResponse<InputStream> answer;
                try {
                    answer = http.send(HttpRequest.newBuilder(URI.create(worker.address() + path))
                            .header("Content-Type", "application/json")
                            .header(SECRET_HEADER, secret)
                            .header("x-request-id", request.id())
                            .POST(HttpRequest.BodyPublishers.ofByteArray(sent))
                            .build(), HttpResponse.BodyHandlers.ofInputStream());
                } catch (IOException e) {
                    LOG.log(Level.WARNING, "worker " + worker.id() + " at " + worker.address() + " failed: " + e.getMessage());
                    directory.unreachable(worker);
                    failed.add(worker.id());
                    continue;
                }
                if (answer.statusCode() == 503 && answer.headers().firstValue(DRAINING_HEADER).isPresent()) {
                    discard(answer);
                    failed.add(worker.id());
                    continue;
                }
                if (answer.statusCode() == 503 && answer.headers().firstValue("Retry-After").isPresent()
                        && System.nanoTime() + LOAD_POLL.toNanos() < deadline) {
                    // the model is loading there (or the worker is full for a moment): ask again shortly
                    discard(answer);
                    Thread.sleep(LOAD_POLL);
                    continue;
                }
                boolean eventStream = answer.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream");
                if (eventStream) {
                    relayStream(answer, clientWantsUsage, hook, response, worker);
                    return;
                }
                byte[] whole;
                try (InputStream in = answer.body()) {
                    whole = in.readAllBytes();
                } catch (IOException e) {
                    // nothing reached the client: another worker may answer
                    directory.unreachable(worker);
                    failed.add(worker.id());
                    continue;
                }
                relayWhole(answer, whole, hook, response);
                return;
            }
        }
    }

    private static void relayWhole(HttpResponse<InputStream> answer, byte[] body, RequestHook hook, ServerResponse response) {
        if (answer.statusCode() == 200) reportUsage(body, hook);
        response.status(answer.statusCode());
        copyHeader(answer, response, "Content-Type");
        copyHeader(answer, response, "Retry-After");
        copyHeader(answer, response, "x-should-retry");
        response.send(body);
    }

    private void relayStream(HttpResponse<InputStream> answer, boolean clientWantsUsage, RequestHook hook,
                             ServerResponse response, dev.inferd.server.store.WorkerRow worker) {
        response.status(answer.statusCode());
        response.header("Content-Type", "text/event-stream; charset=utf-8");
        response.header("Cache-Control", "no-cache");
        response.header("X-Accel-Buffering", "no");
        OutputStream out = response.outputStream();
        boolean done = false;
        try (InputStream in = answer.body();
             BufferedReader events = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            var event = new StringBuilder();
            String line;
            while (true) {
                try {
                    line = events.readLine();
                } catch (IOException e) {
                    break; // the worker went away mid-stream
                }
                if (line == null) break;
                if (!line.isEmpty()) {
                    event.append(line).append('\n');
                    continue;
                }
                String text = event.toString();
                event.setLength(0);
                boolean last = false;
                if (text.startsWith("data: [DONE]")) {
                    done = true;
                    last = true;
                }
                if (text.startsWith("data: {") && text.contains("\"usage\":{")) {
                    JsonNode chunk = JSON.readTree(text.substring("data: ".length()));
                    if (reportUsage(chunk, hook)) {
                        if (!clientWantsUsage && chunk.path("choices").isEmpty()) continue;
                        last = true;
                    }
                }
                if (last && !settled(response, out)) {
                    done = true; // the answer is withheld: its error event is the end
                    break;
                }
                write(out, (text + "\n").getBytes(StandardCharsets.UTF_8));
            }
            if (!done) {
                hook.cancelled();
                directory.unreachable(worker);
                write(out, CUT);
            }
        } catch (IOException e) {
            // only the worker's side can fail here (closing its stream, an unparsable chunk): the client gets the cut event
            if (!done) {
                hook.cancelled();
                write(out, CUT);
            }
        }
        try {
            out.close();
        } catch (IOException | RuntimeException e) {
            // the client left after the last event
        }
    }

    /**
     * The final events (the usage chunk, {@code [DONE]}) may go out only once the request's usage record is committed:
     * the response's barrier ({@link ServerResponse#settle}). When it cannot be, the client gets its error event
     * instead of the end; false then.
     */
    private static boolean settled(ServerResponse response, OutputStream out) {
        try {
            response.settle();
            return true;
        } catch (ApiError withheld) {
            write(out, ("data: " + new String(dev.inferd.server.openai.WireJson.bytes(withheld.body()), StandardCharsets.UTF_8)
                    + "\n\n").getBytes(StandardCharsets.UTF_8));
            return false;
        }
    }

    private static void discard(HttpResponse<InputStream> answer) {
        try {
            answer.body().close();
        } catch (IOException e) {
            // the connection to the worker is dropped either way
        }
    }

    private static void write(OutputStream out, byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
        } catch (IOException | RuntimeException e) {
            throw new ClientGoneException(e);
        }
    }

    private static void reportUsage(byte[] body, RequestHook hook) {
        try {
            reportUsage(JSON.readTree(body), hook);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "a worker's answer is not JSON: its usage is not known");
        }
    }

    /** Reports the tokens of a body or chunk that carries {@code usage}; false when it has none. */
    private static boolean reportUsage(JsonNode node, RequestHook hook) {
        JsonNode usage = node.get("usage");
        if (usage == null || !usage.isObject()) return false;
        hook.tokens(usage.path("prompt_tokens").asInt(0), usage.path("completion_tokens").asInt(0),
                usage.path("prompt_tokens_details").path("cached_tokens").asInt(0));
        return true;
    }

    private static void copyHeader(HttpResponse<?> from, ServerResponse to, String name) {
        from.headers().firstValue(name).ifPresent(v -> to.header(name, v));
    }

    /** The body with {@code stream_options.include_usage} set, so that the gateway learns a stream's tokens. */
    private static JsonNode withUsage(JsonNode body) {
        JsonNode options = body.get("stream_options");
        if (options != null && !options.isObject() && !options.isNull()) return body; // the worker refuses it as it is
        ObjectNode copy = ((ObjectNode) body).deepCopy();
        ObjectNode streamOptions = options instanceof ObjectNode o ? o.deepCopy() : JSON.createObjectNode();
        streamOptions.put("include_usage", true);
        copy.set("stream_options", streamOptions);
        return copy;
    }

    private static byte[] bytes(JsonNode body) {
        try {
            return JSON.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new IllegalStateException("a JSON tree always serializes", e);
        }
    }

    @Override
    public void close() {
        http.close();
    }
}
