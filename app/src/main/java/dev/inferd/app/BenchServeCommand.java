package dev.inferd.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.inferd.app.loadtest.LoadLevel;
import dev.inferd.app.loadtest.LoadLevel.LevelResult;
import dev.inferd.app.loadtest.StreamingClient;
import dev.inferd.app.loadtest.StreamingClient.Endpoint;
import dev.inferd.app.models.ModelException;
import dev.inferd.app.models.ModelResolver;
import dev.inferd.app.models.ResolvedModel;
import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.generate.ModelEvent;
import dev.inferd.server.openai.EngineRequests;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.gguf.GGUFFormatException;
import dev.inferd.engine.tensor.parallel.WorkerPool;
import dev.inferd.server.http.InferdServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;

/**
 * {@code inferd bench-serve}: load on a running OpenAI-compatible server (ours, llama-server, vLLM,
 * ...) from N concurrent streaming clients, for each N: aggregate tokens/s, time to first token and
 * inter-token latency percentiles, errors. A benchmark prints figures; it asserts nothing.
 */
@Command(name = "bench-serve", mixinStandardHelpOptions = true,
        header = "Load-test an OpenAI-compatible server with streaming clients.",
        description = {
                "Load-test an OpenAI-compatible server with concurrent streaming clients and print, per concurrency:",
                "aggregate tokens/s, time to first token (TTFT) and inter-token latency (ITL) p50/p99, and errors.",
                "Tokens are counted from the usage chunk (stream_options.include_usage) when the server sends it,",
                "else one per chunk with text; ITL is the gap between chunks with text.",
                "With --serve-model the clients share this machine's cores with the engine: on a small machine that",
                "delays reading, which bunches chunks together (ITL p50 near 0). Prefer a server in its own process."})
public final class BenchServeCommand implements Callable<Integer> {

    @Option(names = "--url", defaultValue = "http://127.0.0.1:8000/v1", paramLabel = "<base-url>",
            description = "the server's OpenAI base URL (default: ${DEFAULT-VALUE})")
    String url;

    @Option(names = "--model", paramLabel = "<id>",
            description = "model id to request (default: the first one the server lists)")
    String model;

    @Option(names = "--serve-model", paramLabel = "<slug|file.gguf>",
            description = "start an inferd server with this model in this process, on a free port, and load it instead of --url")
    String serveModel;

    @Option(names = "--ctx", defaultValue = "0", paramLabel = "N",
            description = "with --serve-model: context length (default: as serve chooses it)")
    int contextLength;

    @Option(names = "--threads", defaultValue = "0", paramLabel = "N",
            description = "with --serve-model: compute threads (default: all cores)")
    int threads;

    @Option(names = "--offline", description = "with --serve-model: never download")
    boolean offline;

    @Option(names = "--endpoint", defaultValue = "chat", paramLabel = "chat|completions",
            description = "chat (/chat/completions) or completions (/completions) (default: ${DEFAULT-VALUE})")
    Endpoint endpoint;

    @Option(names = "--concurrency", split = ",", defaultValue = "1,4,8,16", paramLabel = "N[,N...]",
            description = "numbers of concurrent clients, one run each (default: ${DEFAULT-VALUE})")
    List<Integer> concurrency;

    @Option(names = "--max-tokens", defaultValue = "64", paramLabel = "N",
            description = "max_tokens of each request (default: ${DEFAULT-VALUE})")
    int maxTokens;

    @Option(names = "--requests-per-client", defaultValue = "4", paramLabel = "N",
            description = "requests each client sends, one after the other; 0: until --duration is over (default: ${DEFAULT-VALUE})")
    int requestsPerClient;

    @Option(names = "--duration", defaultValue = "120", paramLabel = "SECONDS",
            description = "cap on each concurrency run: no request starts after it (default: ${DEFAULT-VALUE})")
    int durationSeconds;

    @Option(names = "--timeout", defaultValue = "300", paramLabel = "SECONDS",
            description = "cap on one request (default: ${DEFAULT-VALUE})")
    int timeoutSeconds;

    @Option(names = "--warmup", defaultValue = "1", paramLabel = "N",
            description = "requests sent one by one before measuring, not counted (default: ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = "--ignore-eos", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "send ignore_eos and min_tokens (llama.cpp, vLLM) so every request generates max-tokens; "
                    + "inferd ignores them (default: on; --no-ignore-eos for servers that reject unknown fields)")
    boolean ignoreEos;

    @Option(names = "--json", description = "print one JSON object per concurrency instead of a table")
    boolean json;

    private final PrintStream out;
    private final PrintStream err;
    private final ObjectMapper mapper = new ObjectMapper();

    public BenchServeCommand() {
        this(System.out, System.err);
    }

    BenchServeCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() throws InterruptedException {
        if (concurrency.isEmpty() || concurrency.stream().anyMatch(n -> n < 1) || maxTokens < 1
                || requestsPerClient < 0 || durationSeconds < 1 || timeoutSeconds < 1 || warmup < 0) {
            err.println("inferd: --concurrency values, --max-tokens, --duration and --timeout must be positive; "
                    + "--requests-per-client and --warmup at least 0");
            return 2;
        }
        if (serveModel != null) return serveAndRun();
        return run(stripSlash(url));
    }

    private int serveAndRun() throws InterruptedException {
        TextGenerator generator;
        try {
            ResolvedModel resolved = ModelResolver.fromEnvironment().resolveModel(serveModel, offline);
            String owner = resolved.entry().isPresent() ? resolved.ownedBy() : null;
            var local = LocalTextGenerator.open(resolved.file(),
                    new LocalTextGenerator.Options(resolved.id(), owner, contextLength).withThreads(threads)
                            .withMaxChoices(EngineRequests.MAX_CHOICES)
                            .withCopyCache(ModelEvents.copyCacheDirectory()).withAfterLoad(true),
                    event -> {
                        if (!(event instanceof ModelEvent.Loaded)) new ModelEvents(err).on(event);
                    });
            generator = local;
            local.awaitAfterLoad(); // before the load test runs, not beside it
        } catch (ModelException | GGUFFormatException | UnsupportedOperationException | IllegalArgumentException e) {
            err.println("inferd: " + e.getMessage());
            return 1;
        } catch (IOException e) {
            err.println("inferd: cannot read the model: " + e.getMessage());
            return 1;
        }
        String id = generator.description().id();
        try (generator; InferdServer server = InferdServer.start("127.0.0.1", 0, Map.of(id, generator))) {
            if (model == null) model = id;
            return run("http://127.0.0.1:" + server.port() + "/v1");
        }
    }

    private int run(String baseUrl) throws InterruptedException {
        Duration timeout = Duration.ofSeconds(timeoutSeconds);
        try (HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .executor(Executors.newVirtualThreadPerTaskExecutor())
                .build()) {
            if (model == null) {
                model = firstModel(http, baseUrl);
                if (model == null) return 1;
            }
            var client = new StreamingClient(http,
                    new StreamingClient.Settings(baseUrl, model, endpoint, maxTokens, ignoreEos, timeout));
            if (!json) {
                out.printf(Locale.ROOT, "bench-serve: %s at %s, %s, max_tokens %d, %s per client%n", model, baseUrl,
                        endpoint, maxTokens, requestsPerClient == 0 ? "requests for " + durationSeconds + " s"
                                : requestsPerClient + " requests");
            }
            for (int i = 0; i < warmup; i++) {
                var sample = client.send("Say hello.");
                if (!sample.ok()) err.println("inferd: warm-up request failed: " + sample.error());
            }
            if (!json) {
                out.printf("%11s %8s %6s %8s %10s %10s %10s %9s %9s %13s%n", "concurrency", "requests", "errors",
                        "tokens", "tokens/s", "TTFT p50", "TTFT p99", "ITL p50", "ITL p99", "req tokens/s");
            }
            long succeeded = 0;
            for (int n : concurrency) {
                LevelResult result = LoadLevel.run(client, n, requestsPerClient, Duration.ofSeconds(durationSeconds),
                        timeout);
                succeeded += result.requests() - result.errors();
                print(result);
                for (String error : result.errorSamples()) err.println("inferd: at concurrency " + n + ": " + error);
            }
            return succeeded > 0 ? 0 : 1;
        }
    }

    private String firstModel(HttpClient http, String baseUrl) throws InterruptedException {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(baseUrl + "/models"))
                    .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
            JsonNode first = mapper.readTree(response.body()).path("data").path(0).path("id");
            if (response.statusCode() == 200 && first.isTextual()) return first.asText();
            err.println("inferd: " + baseUrl + "/models lists no model (HTTP " + response.statusCode() + "); pass --model");
        } catch (IOException | IllegalArgumentException e) {
            err.println("inferd: cannot reach " + baseUrl + ": " + e.getMessage());
        }
        return null;
    }

    private void print(LevelResult r) {
        if (json) {
            ObjectNode o = mapper.createObjectNode();
            o.put("concurrency", r.concurrency());
            o.put("model", model);
            o.put("endpoint", endpoint.name());
            o.put("max_tokens", maxTokens);
            o.put("requests", r.requests());
            o.put("errors", r.errors());
            o.put("tokens", r.tokens());
            putNumber(o, "duration_s", r.seconds());
            putNumber(o, "aggregate_tokens_per_s", r.aggregateTokensPerS());
            putNumber(o, "ttft_p50_ms", r.ttftP50Ms());
            putNumber(o, "ttft_p99_ms", r.ttftP99Ms());
            putNumber(o, "itl_p50_ms", r.itlP50Ms());
            putNumber(o, "itl_p99_ms", r.itlP99Ms());
            putNumber(o, "per_request_tokens_per_s", r.perRequestTokensPerS());
            out.println(o);
        } else {
            out.printf(Locale.ROOT, "%11d %8d %6d %8d %10s %10s %10s %9s %9s %13s%n", r.concurrency(), r.requests(),
                    r.errors(), r.tokens(), number(r.aggregateTokensPerS()), millis(r.ttftP50Ms()),
                    millis(r.ttftP99Ms()), fineMillis(r.itlP50Ms()), fineMillis(r.itlP99Ms()),
                    number(r.perRequestTokensPerS()));
        }
        out.flush();
    }

    /** JSON has no NaN: a figure that could not be measured is null. */
    private static void putNumber(ObjectNode o, String name, double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            o.putNull(name);
        } else {
            o.put(name, Math.round(value * 1000) / 1000.0);
        }
    }

    private static String number(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.1f", value);
    }

    private static String millis(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.1fms", value);
    }

    private static String fineMillis(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.2fms", value);
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
