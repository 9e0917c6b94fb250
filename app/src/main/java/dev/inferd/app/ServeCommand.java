package dev.inferd.app;

import dev.inferd.app.models.ModelException;
import dev.inferd.app.models.ModelLoading;
import dev.inferd.server.http.SpeechModels;
import dev.inferd.speech.whisper.WhisperModel;
import dev.inferd.speech.whisper.WhisperModelFile;
import dev.inferd.app.models.ModelResolver;
import dev.inferd.app.models.ResolvedModel;
import dev.inferd.engine.generate.ContextSizing;
import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.generate.ModelEvent;
import dev.inferd.engine.generate.ModelDescription;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.gguf.GGUFFormatException;
import dev.inferd.engine.batch.SchedulerStats;
import dev.inferd.server.http.InferdServer;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.http.ServerOptions;
import dev.inferd.server.responses.MemoryResponseStore;
import dev.inferd.server.metrics.EngineStats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/** {@code inferd serve}: the local OpenAI-compatible server. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        header = "Serve models over the OpenAI API on this machine.",
        description = {
                "Serve models over the OpenAI API (chat completions, completions, models, audio transcriptions and",
                "translations with a Whisper model: speech-large-v3 or a whisper.cpp ggml-*.bin file) on http://HOST:PORT/v1.",
                "Local mode: no API key needed (an Authorization header is accepted and ignored), and no outbound",
                "connection except downloading a catalog model that is not cached yet."})
public final class ServeCommand implements Callable<Integer> {
    /** Jetty announces every start and stop at INFO; our own start-up lines say what matters. */
    static final int DEFAULT_PORT = 8000;
    private static final java.util.logging.Logger JETTY_LOG = java.util.logging.Logger.getLogger("org.eclipse.jetty");

    @Option(names = "--model", required = true, paramLabel = "<slug|file.gguf>",
            description = "a catalog slug (see `inferd models`; downloaded on first use), a path to a GGUF file, or a whisper.cpp "
                    + "ggml-*.bin file for speech to text; repeatable (a chat model and a speech model side by side)")
    List<String> models;

    @Option(names = "--draft", paramLabel = "<slug|file.gguf>",
            description = "a smaller model of the same family (the same vocabulary) that drafts tokens for the text model to "
                    + "verify several at a time: speculative decoding; greedy output stays the same token for token, sampled "
                    + "output keeps the model's distribution")
    String draft;

    @Option(names = "--no-prompt-lookup", description = "do not draft from the prompt and the text so far (prompt lookup "
            + "speculation, on by default where no --draft is given; it turns itself off for a sequence where it does not pay)")
    boolean noPromptLookup;

    @Mixin
    ServerOptionsMixin server;

    @Mixin
    ModelOptionsMixin modelOptions;

    @Option(names = "--responses-max", defaultValue = "1000", paramLabel = "N",
            description = "responses kept in memory for GET /v1/responses/{id} and previous_response_id; the least "
                    + "recently used go first (default: ${DEFAULT-VALUE})")
    int responsesMax;

    @Option(names = "--responses-memory", defaultValue = "64m", paramLabel = "SIZE", converter = ByteSize.Converter.class,
            description = "memory the kept responses may take, e.g. 64m (default: ${DEFAULT-VALUE})")
    long responsesMemory;

    /** The draft model once resolved (downloaded if need be), or null. */
    private ResolvedModel resolvedDraft;

    @Override
    public Integer call() {
        String problem = server.problem() != null ? server.problem() : modelOptions.problem();
        if (problem != null) {
            System.err.println("inferd: " + problem);
            return 2;
        }
        if (responsesMax < 1) {
            System.err.println("inferd: --responses-max must be at least 1");
            return 2;
        }
        ServerOptions options;
        try {
            options = server.serverOptions().withResponses(new MemoryResponseStore(responsesMax, responsesMemory));
        } catch (IllegalArgumentException e) {
            System.err.println("inferd: the --responses bounds: " + e.getMessage());
            return 2;
        }
        ModelLoading modelLoading = modelOptions.loading(server);
        String host = server.host;
        int port = server.port(DEFAULT_PORT);
        JETTY_LOG.setLevel(java.util.logging.Level.WARNING);
        AccessLogOutput.install();

        // Downloads (with progress) happen before the port opens. Loading (mapping the file, building the
        // tokenizer: about half a second) runs beside the HTTP server's start-up, which takes longer, so a
        // client that connects early gets a 503 with Retry-After rather than a refused connection.
        List<ResolvedModel> resolved;
        try {
            resolved = resolveAll();
            resolvedDraft = draft == null ? null : ModelResolver.fromEnvironment().resolveModel(draft, modelOptions.offline);
        } catch (ModelException e) {
            System.err.println("inferd: " + e.getMessage());
            return 1;
        }
        // Whisper models are mapped before the port opens (no tokenizer or cache to build: milliseconds)
        var speech = new SpeechModels();
        try {
            for (ResolvedModel m : resolved) {
                if (isSpeech(m)) speech.ready(m.id(), WhisperModel.open(m.file()));
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("inferd: cannot load the speech model: " + e.getMessage());
            return 1;
        }
        List<ResolvedModel> textModels = resolved.stream().filter(m -> !isSpeech(m)).toList();
        if (resolvedDraft != null && (textModels.size() != 1 || isSpeech(resolvedDraft))) {
            System.err.println("inferd: --draft drafts for one text model: serve exactly one text --model with it, and a text "
                    + "model as the draft");
            return 2;
        }
        ModelRegistry registry = new ModelRegistry();
        textModels.forEach(m -> registry.loading(m.id()));
        var running = new Running();
        var shutdownHook = new Thread(running::stop, "inferd-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        // The default KV budget is the process's, not each model's: models served side by side share it.
        ModelLoading perModel = modelLoading.kvMemory() == 0 && textModels.size() > 1
                ? modelLoading.withKvMemory(ContextSizing.defaultBudget() / textModels.size()) : modelLoading;
        var loading = new FutureTask<>(() -> loadAll(textModels, perModel, registry, running));
        Thread.ofPlatform().name("inferd-load").daemon(true).start(loading);

        String failure;
        try {
            running.started(InferdServer.start(host, port, registry, speech, options));
            failure = loading.get();
        } catch (RuntimeException e) {
            failure = "inferd: cannot listen on " + host + ":" + port + ": " + e.getMessage();
        } catch (ExecutionException e) {
            failure = "inferd: cannot load the model: " + e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = "inferd: interrupted while loading";
        }
        if (failure != null) {
            System.err.println(failure);
            running.stop();
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException alreadyExiting) {
                // the hook runs anyway and finds everything stopped
            }
            return 1;
        }
        InferdServer server = running.server();
        if (server == null) return 1; // stopped (Ctrl-C) while the models loaded
        System.out.printf("inferd: serving on http://%s:%d/v1 (OpenAI base URL; no API key needed). Ctrl-C stops.%n",
                this.server.urlHost(), server.port());
        System.out.println(MemoryBudget.describe(options, resolved.size()));
        System.out.flush();
        try {
            running.stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /** What a serve holds while it runs: its server once listening, its models as they load. Stops once. */
    private static final class Running {
        final CountDownLatch stopped = new CountDownLatch(1);
        private final List<TextGenerator> loaded = new ArrayList<>();
        private InferdServer server;
        private boolean closed;

        synchronized void started(InferdServer server) {
            this.server = server;
        }

        /** The listening server, or null once stopped. */
        synchronized InferdServer server() {
            return closed ? null : server;
        }

        /** Keeps a loaded model to close at the end; false (and the caller closes it) once stopped. */
        synchronized boolean add(TextGenerator generator) {
            if (closed) return false;
            loaded.add(generator);
            return true;
        }

        synchronized void stop() {
            if (closed) return;
            closed = true;
            if (server != null) {
                System.err.println("inferd: shutting down");
                server.stop();
            }
            loaded.forEach(TextGenerator::close);
            stopped.countDown();
        }
    }

    /** Loads the models in turn, each marked ready as it comes; null, or what stopped the first that failed. */
    private String loadAll(List<ResolvedModel> resolved, ModelLoading loading, ModelRegistry registry, Running running) {
        for (ResolvedModel model : resolved) {
            try {
                // A file path takes its owner from the GGUF metadata; a catalog slug from the catalog.
                String owner = model.entry().isPresent() ? model.ownedBy() : null;
                var generator = LocalTextGenerator.open(model.file(), loading.options(model.id(), owner)
                        .withDraft(resolvedDraft == null ? null : resolvedDraft.file()).withPromptLookup(!noPromptLookup),
                        new ModelEvents(System.out));
                if (!running.add(generator)) {
                    generator.close(); // stopped while it loaded
                    return null;
                }
                // announced once compiled: until then a client gets 503 with Retry-After, not a slow first answer
                generator.awaitWarmUp();
                registry.ready(model.id(), generator, () -> snapshot(generator.stats()));
            } catch (GGUFFormatException | UnsupportedOperationException | IllegalArgumentException | IOException e) {
                return "inferd: cannot load " + model.file() + ": " + e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "inferd: interrupted while loading";
            }
        }
        return null;
    }

    private List<ResolvedModel> resolveAll() {
        ModelResolver resolver = ModelResolver.fromEnvironment();
        List<ResolvedModel> out = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (String arg : models) {
            ResolvedModel model = resolver.resolveModel(arg, modelOptions.offline);
            String kind = model.entry().map(e -> e.kind()).orElse("chat");
            if (!kind.equals("chat") && !kind.equals("base") && !isSpeech(model)) {
                throw new ModelException(arg + " is a " + kind + " model; this server serves text models only so far");
            }
            if (!ids.add(model.id())) throw new ModelException("model " + model.id() + " is given twice");
            out.add(model);
        }
        return out;
    }

    /** A Whisper model: the catalog says so, or the file is in whisper.cpp's format (magic "ggml", not "GGUF"). */
    static boolean isSpeech(ResolvedModel model) {
        if (model.entry().map(e -> e.kind().equals("speech")).orElse(false)) return true;
        try (var in = java.nio.file.Files.newInputStream(model.file())) {
            byte[] magic = in.readNBytes(4);
            return magic.length == 4 && java.nio.ByteBuffer.wrap(magic).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt() == WhisperModelFile.MAGIC;
        } catch (IOException e) {
            return false;
        }
    }

    private static EngineStats.Snapshot snapshot(SchedulerStats s) {
        return new EngineStats.Snapshot(s.queuedRequests(), s.activeSequences(), s.kvBlocksUsed(), s.kvBlocksTotal(),
                s.kvBlocksCached());
    }

    static String humanCount(long n) {
        if (n >= 1_000_000_000L) return String.format(Locale.ROOT, "%.2fB", n / 1e9);
        if (n >= 1_000_000L) return String.format(Locale.ROOT, "%.1fM", n / 1e6);
        if (n >= 1_000L) return String.format(Locale.ROOT, "%.1fK", n / 1e3);
        return Long.toString(n);
    }
}
