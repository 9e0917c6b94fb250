package dev.inferd.server.cloud.workers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inferd.server.http.AccessLog;
import dev.inferd.server.http.ClientDeparture;
import dev.inferd.server.http.ClientGoneException;
import dev.inferd.server.http.RequestHook;
import dev.inferd.server.http.ServerRequest;
import dev.inferd.server.http.ServerResponse;
import dev.inferd.server.http.Upstream;
import dev.inferd.server.http.WireProtocol;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.MultipartForm;
import dev.inferd.server.openai.WireJson;
import dev.inferd.server.store.WorkerRow;

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
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The gateway's model routes: each request goes to a worker ({@link WorkerDirectory}, {@link RouteChooser}) and its
 * answer comes back through here, a stream event by event with back-pressure (the next event is read from the worker
 * only once the last one is written to the client), an audio upload byte by byte as the worker reads it.
 *
 * <ul>
 *   <li>A worker that cannot be reached, or fails before its answer's first byte reached the client, is left out and
 *       the request goes to another; one that answers 503 while it loads the model is asked again until
 *       {@code loadWait} is over. An upload whose bytes a worker began to read cannot be sent again: its failure is
 *       the client's 502.</li>
 *   <li>A stream the worker cuts ends with an error event in the route's protocol (status 502, no {@code [DONE]}, no
 *       completed event), so no client takes a cut answer for a whole one.</li>
 *   <li>The client's departure closes the connection to the worker, which cancels the work there: seen at once by a
 *       write to a stream's client, and by the client's watch ({@link ClientDeparture}) while nothing is written (a
 *       whole answer being computed, a stream before its first event).</li>
 *   <li>Usage: the worker sends what its handler counted ({@link WorkerReport}) at its own barrier, just before its
 *       final bytes; the counts go to the request's {@link RequestHook} (the gateway's meter), and only then does
 *       this response settle ({@link ServerResponse#settle}), committing the usage record before the client can hold
 *       a whole answer, as under {@code cloud}. The report never reaches the client.</li>
 *   <li>The account the request acts for goes to the worker in {@value #ACCOUNT_HEADER}: kept responses are the
 *       account's there as under {@code cloud}. Workers trust it only with the shared secret.</li>
 * </ul>
 */
public final class WorkerProxy implements Upstream, AutoCloseable {

    /** The header that carries the shared secret a worker demands of every request. */
    public static final String SECRET_HEADER = "x-inferd-worker-secret";
    /** A draining worker's 503 says so in this header: the request goes to another worker at once. */
    public static final String DRAINING_HEADER = "x-inferd-draining";
    /** The account a request acts for (it owns what the request stores), trusted by workers only with the secret. */
    public static final String ACCOUNT_HEADER = "x-inferd-account";

    private static final System.Logger LOG = System.getLogger(WorkerProxy.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CUT_MESSAGE = "The worker serving this request stopped before the answer was complete. "
            + "Retry the request.";
    /** Headers of the client's request the worker's handlers read. */
    private static final String[] PASSED_ON = {"anthropic-version", "anthropic-beta"};
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
    public void forward(String path, ServerRequest request, JsonNode body, String affinity, ServerResponse response,
                        ClientDeparture client) throws InterruptedException {
        JsonNode modelField = body.get("model");
        String model = modelField != null && modelField.isTextual() ? modelField.asText() : "";
        RequestHook hook = RequestHook.of(request);
        if (!model.isEmpty()) hook.model(model); // a key whose scope excludes the model: 403 before any worker is asked
        byte[] sent = bytes(body);
        String key = Affinity.of(request, body, affinity);
        exchange(path, request, model, key, new Payload.Whole(sent), response, client);
    }

    @Override
    public void forwardUpload(String path, ServerRequest request, String boundary, long maxBytes, ServerResponse response,
                              ClientDeparture client) throws InterruptedException {
        var upload = new Upload(request.body(), maxBytes);
        MultipartForm.Head head;
        try {
            head = MultipartForm.readUntil(upload, boundary, "model", maxBytes);
        } catch (IOException e) {
            throw upload.tooLarge() ? ApiError.payloadTooLarge(maxBytes) : ApiError.unreadableBody(e.getMessage());
        }
        if (head.bytes().length > maxBytes) throw ApiError.payloadTooLarge(maxBytes);
        String model = head.value() == null ? null : head.value().strip();
        if (model == null || model.isEmpty()) {
            // the whole body was read without a model: the same error as the worker's parser gives
            MultipartForm.parse(head.bytes(), boundary);
            throw ApiError.missing("model");
        }
        RequestHook.of(request).model(model);
        var payload = new Payload.Streamed(head.bytes(), upload, request.contentLength(), request.header("Content-Type"));
        try {
            exchange(path, request, model, null, payload, response, client);
        } catch (ApiError e) {
            if (upload.tooLarge()) throw ApiError.payloadTooLarge(maxBytes);
            throw e;
        }
    }

    /** A request body the proxy sends: bytes it holds, or a client's upload that can be sent once. */
    private sealed interface Payload {
        HttpRequest.BodyPublisher publisher();

        /** Whether another worker may still be sent it. */
        boolean replayable();

        String contentType();

        record Whole(byte[] bytes) implements Payload {
            @Override
            public HttpRequest.BodyPublisher publisher() {
                return HttpRequest.BodyPublishers.ofByteArray(bytes);
            }

            @Override
            public boolean replayable() {
                return true;
            }

            @Override
            public String contentType() {
                return "application/json";
            }
        }

        /** The bytes read to find the model, then the rest of the client's upload as the worker reads it. */
        record Streamed(byte[] head, Upload rest, long length, String contentType) implements Payload {
            @Override
            public HttpRequest.BodyPublisher publisher() {
                var stream = HttpRequest.BodyPublishers.ofInputStream(
                        () -> new java.io.SequenceInputStream(new java.io.ByteArrayInputStream(head), rest));
                return length >= 0 ? HttpRequest.BodyPublishers.fromPublisher(stream, length) : stream;
            }

            @Override
            public boolean replayable() {
                return !rest.touched();
            }
        }
    }

    /**
     * The client's upload as the worker reads it: at most {@code limit} bytes in all (the head read to find the model
     * included); a failure to read from the client is its departure, not the worker's fault.
     */
    private static final class Upload extends InputStream {
        private final InputStream in;
        private final long limit;
        private long read;
        private volatile boolean touched;
        private volatile boolean tooLarge;
        private volatile boolean clientFailed;
        private boolean headDone;

        Upload(InputStream in, long limit) {
            this.in = in;
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (headDone) touched = true;
            int n;
            try {
                n = in.read(b, off, len);
            } catch (IOException | RuntimeException e) {
                clientFailed = true;
                throw e instanceof IOException io ? io : new IOException(e);
            }
            if (n > 0) {
                read += n;
                if (headDone && read > limit) { // the head's own excess is the caller's 413
                    tooLarge = true;
                    throw new IOException("the upload is larger than " + limit + " bytes");
                }
            }
            return n;
        }

        /** From now on the reads are the worker's: the upload can no longer be sent to another. */
        void headRead() {
            headDone = true;
        }

        boolean touched() {
            return touched;
        }

        long limit() {
            return limit;
        }

        boolean tooLarge() {
            return tooLarge;
        }

        boolean clientFailed() {
            return clientFailed;
        }

        @Override
        public void close() {
            // the client's body belongs to the server, which deals with what is left unread
        }
    }

    private void exchange(String path, ServerRequest request, String model, String affinity, Payload payload,
                          ServerResponse response, ClientDeparture client) throws InterruptedException {
        if (payload instanceof Payload.Streamed s) s.rest().headRead();
        RequestHook hook = RequestHook.of(request);
        long deadline = System.nanoTime() + loadWait.toNanos();
        Set<String> failed = new HashSet<>();
        while (true) {
            Optional<WorkerDirectory.Target> target = directory.choose(model, affinity, failed, loadWait);
            if (target.isEmpty() || failed.size() >= MAX_FAILED_WORKERS) {
                throw ApiError.noWorker(failed.isEmpty() ? "No worker is serving now. Please retry in a few seconds."
                        : "No worker could take the request now. Please retry in a few seconds.", 2);
            }
            if (!payload.replayable()) throw ApiError.workerFailed(CUT_MESSAGE);
            var worker = target.get().worker();
            try (WorkerDirectory.Lease lease = directory.lease(worker.id())) {
                var call = new WorkerCall();
                client.onDeparture(call::abort);
                HttpResponse<InputStream> answer;
                try {
                    answer = call.send(http, toWorker(worker, path, request, hook, payload));
                } catch (IOException e) {
                    if (call.aborted()) throw new ClientGoneException(e);
                    if (payload instanceof Payload.Streamed s && (s.rest().clientFailed() || s.rest().tooLarge())) {
                        throw s.rest().tooLarge() ? ApiError.payloadTooLarge(s.rest().limit()) : new ClientGoneException(e);
                    }
                    LOG.log(Level.WARNING, "worker " + worker.id() + " at " + worker.address() + " failed: " + e.getMessage());
                    directory.unreachable(worker);
                    failed.add(worker.id());
                    continue;
                }
                if (answer.statusCode() == 503 && answer.headers().firstValue(DRAINING_HEADER).isPresent()
                        && payload.replayable()) {
                    discard(answer);
                    failed.add(worker.id());
                    continue;
                }
                if (answer.statusCode() == 503 && answer.headers().firstValue("Retry-After").isPresent()
                        && payload.replayable() && System.nanoTime() + LOAD_POLL.toNanos() < deadline) {
                    // the model is loading there (or the worker is full for a moment): ask again shortly
                    discard(answer);
                    Thread.sleep(LOAD_POLL);
                    continue;
                }
                Optional<WorkerReport> headerReport = WorkerReport.parse(answer.headers().firstValue(WorkerReport.HEADER).orElse(null));
                boolean eventStream = answer.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream");
                if (eventStream) {
                    relayStream(path, answer, headerReport, hook, response, worker, call);
                    return;
                }
                byte[] whole;
                try (InputStream in = answer.body()) {
                    whole = in.readAllBytes();
                } catch (IOException e) {
                    if (call.aborted()) throw new ClientGoneException(e);
                    // nothing reached the client: another worker may answer
                    directory.unreachable(worker);
                    failed.add(worker.id());
                    continue;
                }
                relayWhole(answer, whole, headerReport, hook, response);
                return;
            }
        }
    }

    private HttpRequest toWorker(WorkerRow worker, String path, ServerRequest request, RequestHook hook, Payload payload) {
        var builder = HttpRequest.newBuilder(URI.create(worker.address() + path))
                .header("Content-Type", payload.contentType())
                .header(SECRET_HEADER, secret)
                .header(ACCOUNT_HEADER, hook.owner())
                .header("x-request-id", request.id())
                .POST(payload.publisher());
        for (String name : PASSED_ON) {
            String value = request.header(name);
            if (value != null) builder.header(name, value);
        }
        return builder.build();
    }

    private static void relayWhole(HttpResponse<InputStream> answer, byte[] body, Optional<WorkerReport> headerReport,
                                   RequestHook hook, ServerResponse response) {
        byte[] out = body;
        Optional<WorkerReport> report = headerReport;
        int start = 0;
        while (start < body.length && isSpace(body[start])) start++;
        byte[] prefix = WorkerReport.LINE_PREFIX.getBytes(StandardCharsets.US_ASCII);
        if (startsWith(body, start, prefix)) {
            // a JSON answer the worker began early (its probes' spaces): the report sits before the JSON
            int end = indexOf(body, (byte) '\n', start);
            if (end > 0) {
                report = WorkerReport.parse(new String(body, start + prefix.length, end - start - prefix.length, StandardCharsets.US_ASCII));
                out = java.util.Arrays.copyOfRange(body, end + 1, body.length);
            }
        }
        report.ifPresent(r -> count(r, hook));
        response.status(answer.statusCode());
        copyHeader(answer, response, "Content-Type");
        copyHeader(answer, response, "Retry-After");
        copyHeader(answer, response, "x-should-retry");
        response.send(out);
    }

    private void relayStream(String path, HttpResponse<InputStream> answer, Optional<WorkerReport> headerReport,
                             RequestHook hook, ServerResponse response, WorkerRow worker, WorkerCall call) {
        response.status(answer.statusCode());
        response.header("Content-Type", "text/event-stream; charset=utf-8");
        response.header("Cache-Control", "no-cache");
        response.header("X-Accel-Buffering", "no");
        boolean reported = false;
        if (headerReport.isPresent()) {
            // the worker settled before its first event: so does the gateway
            count(headerReport.get(), hook);
            response.settle();
            reported = true;
        }
        OutputStream out = response.outputStream();
        boolean ended = false; // the worker's stream ended as the worker meant it to
        int events = 0;
        try (InputStream in = answer.body();
             BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            var event = new StringBuilder();
            String line;
            while (true) {
                try {
                    line = lines.readLine();
                } catch (IOException e) {
                    if (call.aborted()) throw new ClientGoneException(e);
                    break; // the worker went away mid-stream
                }
                if (line == null) {
                    ended = reported;
                    break;
                }
                if (!line.isEmpty()) {
                    event.append(line).append('\n');
                    continue;
                }
                String text = event.toString();
                event.setLength(0);
                if (text.isEmpty()) continue;
                if (text.startsWith(WorkerReport.LINE_PREFIX)) {
                    Optional<WorkerReport> report = WorkerReport.parse(text.substring(WorkerReport.LINE_PREFIX.length()));
                    if (report.isPresent() && !reported) {
                        reported = true;
                        count(report.get(), hook);
                        if (!settled(path, response, out, events)) {
                            ended = true; // the answer is withheld: its error event is the end
                            break;
                        }
                    }
                    continue;
                }
                if (isError(text)) ended = true; // the worker's own error event ends the stream
                write(out, (text + "\n").getBytes(StandardCharsets.UTF_8));
                events++;
            }
            if (!ended && call.aborted()) throw new ClientGoneException(null); // not the worker's failure
            if (!ended) {
                hook.cancelled();
                directory.unreachable(worker);
                write(out, cutEvent(path, ApiError.workerFailed(CUT_MESSAGE), events));
            }
        } catch (IOException e) {
            // only the worker's side can fail here (closing its stream): the client gets the cut event
            if (call.aborted()) throw new ClientGoneException(e);
            if (!ended) {
                hook.cancelled();
                write(out, cutEvent(path, ApiError.workerFailed(CUT_MESSAGE), events));
            }
        }
        try {
            out.close();
        } catch (IOException | RuntimeException e) {
            // the client left after the last event
        }
    }

    /** An error event: chat's {@code data: {"error":...}}, or a named {@code error} event (Responses, Messages). */
    private static boolean isError(String event) {
        return event.startsWith("event: error\n") || event.startsWith("data: {\"error\":");
    }

    /**
     * The final events may go out only once the request's usage record is committed: the response's barrier
     * ({@link ServerResponse#settle}). When it cannot be, the client gets its error event instead of the end; false
     * then.
     */
    private static boolean settled(String path, ServerResponse response, OutputStream out, int events) {
        try {
            response.settle();
            return true;
        } catch (ApiError withheld) {
            write(out, cutEvent(path, withheld, events));
            return false;
        }
    }

    /**
     * The error event that ends a stream the gateway cannot complete, as the route's protocol frames one: chat's
     * {@code data:} error, Messages' {@code event: error}, Responses' {@code error} event with its sequence number.
     */
    private static byte[] cutEvent(String path, ApiError error, int sequence) {
        String text;
        if (WireProtocol.of(path) == WireProtocol.ANTHROPIC) {
            text = "event: error\ndata: " + json(WireProtocol.ANTHROPIC.errorBody(error, null)) + "\n\n";
        } else if (path.startsWith("/v1/responses")) {
            var event = new java.util.LinkedHashMap<String, Object>();
            event.put("type", "error");
            event.put("code", error.reason());
            event.put("message", error.getMessage());
            event.put("param", null);
            event.put("sequence_number", sequence);
            text = "event: error\ndata: " + json(event) + "\n\n";
        } else {
            text = "data: " + json(error.body()) + "\n\n";
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String json(Object body) {
        return new String(WireJson.bytes(body), StandardCharsets.UTF_8);
    }

    private static void count(WorkerReport report, RequestHook hook) {
        if (report.promptTokens() > 0 || report.completionTokens() > 0 || report.cachedTokens() > 0) {
            hook.tokens(report.promptTokens(), report.completionTokens(), report.cachedTokens());
            AccessLog.tokens(report.promptTokens(), report.completionTokens());
        }
        if (report.audioMillis() > 0) hook.audio(report.audioMillis());
        if (report.cancelled()) hook.cancelled();
    }

    /**
     * One request to a worker, which the client's departure aborts (on the client watch's thread): the exchange is
     * cancelled while its answer's head is awaited, the answer's body closed once it is there. Either closes the
     * connection to the worker, which cancels the work there as it does for any client that leaves.
     */
    private static final class WorkerCall {
        private final AtomicBoolean aborted = new AtomicBoolean();
        private volatile CompletableFuture<HttpResponse<InputStream>> pending;
        private volatile InputStream body;

        HttpResponse<InputStream> send(HttpClient http, HttpRequest request) throws IOException, InterruptedException {
            var answer = http.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream());
            pending = answer;
            if (aborted.get()) answer.cancel(true);
            HttpResponse<InputStream> got;
            try {
                got = answer.get();
            } catch (CancellationException e) {
                throw new IOException("the client left", e);
            } catch (InterruptedException e) {
                answer.cancel(true);
                throw e;
            } catch (ExecutionException e) {
                if (aborted.get()) throw new IOException("the client left", e.getCause());
                switch (e.getCause()) {
                    case IOException io -> throw io;
                    case RuntimeException unchecked -> throw unchecked;
                    case Error error -> throw error;
                    default -> throw new IOException(e.getCause());
                }
            }
            body = got.body();
            if (aborted.get()) closeQuietly(body);
            return got;
        }

        void abort() {
            if (!aborted.compareAndSet(false, true)) return;
            var answer = pending;
            if (answer != null) answer.cancel(true);
            var in = body;
            if (in != null) closeQuietly(in);
        }

        boolean aborted() {
            return aborted.get();
        }

        private static void closeQuietly(InputStream in) {
            try {
                in.close();
            } catch (IOException e) {
                // the connection to the worker is dropped either way
            }
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

    private static void copyHeader(HttpResponse<?> from, ServerResponse to, String name) {
        from.headers().firstValue(name).ifPresent(v -> to.header(name, v));
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\n' || b == '\r' || b == '\t';
    }

    private static boolean startsWith(byte[] body, int at, byte[] prefix) {
        if (body.length - at < prefix.length) return false;
        for (int i = 0; i < prefix.length; i++) if (body[at + i] != prefix[i]) return false;
        return true;
    }

    private static int indexOf(byte[] body, byte b, int from) {
        for (int i = from; i < body.length; i++) if (body[i] == b) return i;
        return -1;
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
