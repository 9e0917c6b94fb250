package dev.inferd.engine.generate;

import dev.inferd.engine.chat.ChatFormat;
import dev.inferd.engine.chat.RenderedPrompt;
import dev.inferd.engine.grammar.TokenVocabulary;

import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.batch.Scheduler;
import dev.inferd.engine.batch.SchedulerStats;
import dev.inferd.engine.batch.Speculation;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.model.Model;
import dev.inferd.engine.model.ModelConfig;
import dev.inferd.engine.tensor.copies.CopyCacheFile;
import dev.inferd.engine.tensor.copies.CopyStore;
import dev.inferd.engine.tensor.parallel.WorkerPool;
import dev.inferd.engine.tokenizer.Tokenizer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.List;

/**
 * A GGUF model served in-process: tokenizer, chat template, transformer and KV cache behind the
 * {@link TextGenerator} the server uses.
 *
 * <p>Requests run together under a {@link Scheduler} (continuous batching): every step is one forward
 * pass over the next token of each running choice plus a chunk of pending prompt. KV memory is a
 * pool of blocks ({@link Options#kvMemory()}); prompts share blocks between a request's choices and,
 * through the prefix cache, with earlier requests that began with the same tokens. When the waiting
 * queue is full, {@link #submit} throws {@link BusyException}.
 */
public final class LocalTextGenerator implements TextGenerator {
    /** Prompt positions per step when none is configured. */
    static final int DEFAULT_STEP_TOKENS = 512;
    /** Sequences decoded together when none is configured. */
    public static final int DEFAULT_PARALLEL = 8;
    /** Requests that may wait for a place when none is configured. */
    public static final int DEFAULT_MAX_QUEUED = 64;

    /**
     * @param id the model name clients use; null for the file name without {@code .gguf}
     * @param ownedBy null to take it from the file's metadata
     * @param contextLength 0 for the model's trained context as far as the KV memory holds one sequence of it
     *                      ({@link ContextSizing})
     * @param parallel sequences decoded together (a request with more choices runs alone); 0 for {@link #DEFAULT_PARALLEL}
     * @param kvMemory bytes of KV cache; 0 for {@code parallel} full contexts, but at most
     *                 {@link ContextSizing#defaultBudget()} (never less than one full context)
     * @param maxQueued requests that may wait beyond the running ones before {@link BusyException}; 0 for
     *                  {@link #DEFAULT_MAX_QUEUED}
     * @param stepTokens prompt positions per forward pass (a long prompt delays other streams by one such
     *                   chunk); 0 for {@link #DEFAULT_STEP_TOKENS}
     * @param copyCache the directory where the weights' copies for generated tokens are cached between
     *                  loads ({@link CopyCacheFile}); null to build them in memory at every load
     * @param maxChoices the most choices one request may have (the KV cache keeps a block table for each);
     *                   0 for {@code parallel}
     * @param threads compute threads of the shared worker pool; 0 leaves the pool as it is (one thread per
     *                core unless configured before)
     * @param afterLoad whether the work that follows the load ({@link AfterLoad}) runs on a background
     *                  thread after {@link #open}; a server wants it, a short-lived test does not
     * @param draft a smaller model with the same vocabulary that drafts tokens for this one to verify
     *              (speculative decoding), or null
     * @param promptLookup whether sequences draft by prompt lookup where there is no draft model
     * @param draftMinProbability the draft model's least probability for a token it drafts ({@link Speculation#minProbability})
     * @param draftAlways whether the draft model drafts even where its drafts cannot pay ({@link Speculation#draftAlways}):
     *                    to measure verification, and for tests of it
     */
    public record Options(String id, String ownedBy, int contextLength, int parallel, long kvMemory, int maxQueued,
                          int stepTokens, Path copyCache, int maxChoices, int threads, boolean afterLoad,
                          Path draft, boolean promptLookup, float draftMinProbability, boolean draftAlways) {
        public static final Options DEFAULTS = new Options(null, null, 0);

        public Options {
            if (contextLength < 0 || parallel < 0 || kvMemory < 0 || maxQueued < 0 || stepTokens < 0
                    || maxChoices < 0 || threads < 0) {
                throw new IllegalArgumentException("options must not be negative: " + this);
            }
        }

        public Options(String id, String ownedBy, int contextLength) {
            this(id, ownedBy, contextLength, 0, 0, 0, 0, null, 0, 0, false, null, true, Speculation.DEFAULT_MIN_PROBABILITY, false);
        }

        public Options withParallel(int parallel) {
            return new Options(id, ownedBy, contextLength, parallel, kvMemory, maxQueued, stepTokens, copyCache, maxChoices, threads, afterLoad, draft, promptLookup, draftMinProbability, draftAlways);
        }

        public Options withKvMemory(long kvMemory) {
            return new Options(id, ownedBy, contextLength, parallel, kvMemory, maxQueued, stepTokens, copyCache, maxChoices, threads, afterLoad, draft, promptLookup, draftMinProbability, draftAlways);
        }

        public Options withMaxQueued(int maxQueued) {
            return new Options(id, ownedBy, contextLength, parallel, kvMemory, maxQueued, stepTokens, copyCache, maxChoices, threads, afterLoad, draft, promptLookup, draftMinProbability, draftAlways);
        }

        public Options withStepTokens(int stepTokens) {
            return new Options(id, ownedBy, contextLength, parallel, kvMemory, maxQueued, stepTokens, copyCache, maxChoices, threads, afterLoad, draft, promptLookup, draftMinProbability, draftAlways);
        }

        public Options withCopyCache(Path copyCache) {
            return new Options(id, ownedBy, contextLength, parallel, kvMemory, maxQueued, stepTokens, copyCache, maxChoices, threads, afterLoad, draft, promptLookup, draftMinProbability, draftAlways);
        }

        public Options withMaxChoices(int maxChoices) {
            return new Options(id, ownedBy, contextLength, parallel, kvMemory, maxQueued, stepTokens, copyCache, maxChoices, threads, afterLoad, draft, promptLookup, draftMinProbability, draftAlways);
        }

        public Options withThreads(int threads) {
            return new Options(id, ownedBy, contextLength, parallel, kvMemory, maxQueued, stepTokens, copyCache, maxChoices, threads, afterLoad, draft, promptLookup, draftMinProbability, draftAlways);
        }

        public Options withAfterLoad(boolean afterLoad) {
            return new Options(id, ownedBy, contextLength, parallel, kvMemory, maxQueued, stepTokens, copyCache, maxChoices, threads, afterLoad, draft, promptLookup, draftMinProbability, draftAlways);
        }

        public Options withDraft(Path draft) {
            return new Options(id, ownedBy, contextLength, parallel, kvMemory, maxQueued, stepTokens, copyCache, maxChoices, threads, afterLoad, draft, promptLookup, draftMinProbability, draftAlways);
        }

        public Options withDraftMinProbability(float draftMinProbability) {
            return new Options(id, ownedBy, contextLength, parallel, kvMemory, maxQueued, stepTokens, copyCache, maxChoices, threads, afterLoad, draft, promptLookup, draftMinProbability, draftAlways);
        }

        public Options withDraftAlways(boolean draftAlways) {
            return new Options(id, ownedBy, contextLength, parallel, kvMemory, maxQueued, stepTokens, copyCache, maxChoices, threads, afterLoad, draft, promptLookup, draftMinProbability, draftAlways);
        }

        public Options withPromptLookup(boolean promptLookup) {
            return new Options(id, ownedBy, contextLength, parallel, kvMemory, maxQueued, stepTokens, copyCache, maxChoices, threads, afterLoad, draft, promptLookup, draftMinProbability, draftAlways);
        }
    }

    private final GGUFFile gguf;
    /** The draft model's file, or null. */
    private final GGUFFile draftGguf;
    private final Model model;
    private final Tokenizer tokenizer;
    private final ChatPrompt chatPrompt;
    private final ModelDescription description;
    private final Scheduler scheduler;
    private final KVMemory kvMemory;
    /** Where the weights' copies are cached, or null where they are built in memory at every load. */
    private final CopyCacheFile copyCache;
    /** The work after the load ({@link Options#afterLoad()}), or null. */
    private Thread afterLoad;

    private LocalTextGenerator(GGUFFile gguf, GGUFFile draftGguf, Options options) throws IOException {
        this.gguf = gguf;
        this.draftGguf = draftGguf;
        ModelConfig config = ModelConfig.fromGGUF(gguf);
        // a draft model's cache holds a block for each of the target's: the budget is split in that proportion
        double share = draftGguf == null ? 1 : KVMemory.targetShare(config, ModelConfig.fromGGUF(draftGguf));
        long budget = options.kvMemory() > 0 ? options.kvMemory() : ContextSizing.defaultBudget();
        int context = ContextSizing.context(config, options.contextLength(), (long) (budget * share), parallelOf(options),
                stepTokensOf(options));
        Scheduler.Config schedule = scheduleFor(config, context, options, share);
        this.tokenizer = Tokenizer.fromGGUF(gguf);
        Model draftModel = null;
        if (draftGguf != null) {
            DraftVocabulary.check(tokenizer, Tokenizer.fromGGUF(draftGguf), gguf.path(), draftGguf.path());
            CopyCacheFile draftCopies = options.copyCache() != null
                    ? CopyCacheFile.open(options.copyCache(), draftGguf, WeightMatrices.COPIES) : null;
            draftModel = Model.load(draftGguf, Scheduler.draftBatch(schedule), draftCopies != null ? draftCopies : CopyStore.inMemory());
        }
        Speculation speculation = draftModel != null
                ? new Speculation(draftModel, false, Speculation.DEFAULT_MAX_DRAFT, options.draftMinProbability(),
                        (double) Files.size(draftGguf.path()) / Files.size(gguf.path()), options.draftAlways())
                : options.promptLookup() ? Speculation.PROMPT_LOOKUP : Speculation.NONE;
        this.copyCache = options.copyCache() != null ? CopyCacheFile.open(options.copyCache(), gguf, WeightMatrices.COPIES) : null;
        this.model = Model.load(gguf, speculation.targetBatch(schedule), copyCache != null ? copyCache : CopyStore.inMemory());
        this.chatPrompt = ChatPrompt.forModel(gguf, tokenizer);
        Path file = gguf.path();
        String fileName = file.getFileName().toString();
        String id = options.id() != null ? options.id()
                : fileName.endsWith(".gguf") ? fileName.substring(0, fileName.length() - 5) : fileName;
        this.description = new ModelDescription(id,
                options.ownedBy() != null ? options.ownedBy() : ModelFacts.owner(gguf),
                Files.getLastModifiedTime(file).toMillis() / 1000,
                gguf.architecture(), ModelFacts.parameterCount(gguf), ModelFacts.quantization(gguf), context);
        this.scheduler = new Scheduler(model, context, schedule, speculation);
        this.kvMemory = KVMemory.of(config, draftGguf == null ? null : draftModel.config(), context, schedule, budget);
    }

    /**
     * Turns the options into pool and step sizes (see {@link Options} for the defaults). The KV memory holds the
     * sliding-window layers' pool first, a window's worth of blocks per sequence
     * ({@code SlidingWindows.blocksPerSequence}), and blocks of the layers that see the whole context in the rest: the
     * pool admission control counts.
     */
    static Scheduler.Config scheduleFor(ModelConfig config, int context, Options options) {
        return scheduleFor(config, context, options, 1);
    }

    /** {@link #scheduleFor(ModelConfig, int, Options)} with {@code share} of the KV memory (the rest is a draft model's). */
    static Scheduler.Config scheduleFor(ModelConfig config, int context, Options options, double share) {
        int parallel = parallelOf(options);
        int maxChoices = options.maxChoices() > 0 ? options.maxChoices() : parallel;
        int stepTokens = stepTokensOf(options);
        int sequences = Math.max(parallel, maxChoices);
        int blockSize = KVCache.DEFAULT_BLOCK_SIZE;
        long blockBytes = KVMemory.globalBlockBytes(config);
        long windowedPool = KVMemory.slidingWindowBytes(config, context, parallel, stepTokens);
        int contextBlocks = Math.ceilDiv(context, blockSize);
        long contextBytes = contextBlocks * blockBytes;
        long memory = (long) (options.kvMemory() * share);
        if (memory == 0) {
            long cap = (long) (ContextSizing.defaultBudget() * share);
            memory = windowedPool + Math.max(contextBytes, Math.min(parallel * contextBytes, cap - windowedPool));
        } else if (memory > Runtime.getRuntime().maxMemory()) {
            throw new IllegalArgumentException("KV memory of " + memory + " bytes exceeds the Java heap's "
                    + Runtime.getRuntime().maxMemory() + " (raise -Xmx)");
        }
        // a model whose every layer slides keeps its windows only: the other pool is bookkeeping without storage
        long blocks = blockBytes == 0 ? (long) sequences * contextBlocks : (memory - windowedPool) / blockBytes;
        if (blocks < 1) {
            throw new IllegalArgumentException("KV memory of " + memory + " bytes holds no block of " + blockSize
                    + " positions (" + blockBytes + " bytes) beside the sliding-window layers' " + windowedPool + " bytes");
        }
        return new Scheduler.Config(parallel, options.maxQueued() > 0 ? options.maxQueued() : DEFAULT_MAX_QUEUED,
                stepTokens, maxChoices, blockSize, (int) Math.min(blocks, Integer.MAX_VALUE / 2));
    }

    private static int parallelOf(Options options) {
        return options.parallel() > 0 ? options.parallel() : DEFAULT_PARALLEL;
    }

    private static int stepTokensOf(Options options) {
        return options.stepTokens() > 0 ? options.stepTokens() : DEFAULT_STEP_TOKENS;
    }

    /** Maps the file and loads everything a request needs; weights stay in the mapping. */
    public static LocalTextGenerator open(Path file, Options options) throws IOException {
        return open(file, options, ModelEvent.Listener.NONE);
    }

    /**
     * Maps the file and loads everything a request needs, then, with {@link Options#afterLoad()}, starts
     * the work that follows the load in the background. {@code listener} hears of the load and of that work.
     */
    public static LocalTextGenerator open(Path file, Options options, ModelEvent.Listener listener) throws IOException {
        if (options.threads() > 0 && WorkerPool.shared().threads() != options.threads()) {
            WorkerPool.configure(options.threads()); // before the load: the model keeps the shared pool
        }
        long started = System.nanoTime();
        GGUFFile gguf = GGUFFile.open(file);
        GGUFFile draft = null;
        LocalTextGenerator generator;
        try {
            if (options.draft() != null) draft = GGUFFile.open(options.draft());
            generator = new LocalTextGenerator(gguf, draft, options);
        } catch (IOException | RuntimeException e) {
            gguf.close();
            if (draft != null) draft.close();
            throw e;
        }
        CopyCacheFile cache = generator.copyCache;
        String id = generator.description.id();
        listener.on(new ModelEvent.Loaded(id, generator.description, generator.trainedContextLength(), generator.kvMemory,
                (System.nanoTime() - started) / 1_000_000, cache != null ? cache.copyBytes() : 0,
                cache != null && cache.reused(), cache != null ? cache.file() : null));
        if (options.afterLoad()) generator.afterLoad = AfterLoad.inBackground(cache, gguf, id, listener);
        generator.scheduler.warmedUp().thenAccept(report -> listener.on(new ModelEvent.WarmedUp(id, report.millis(),
                report.kernelRounds(), report.kernelMillis(), report.passes())));
        return generator;
    }

    /**
     * Waits until the warm-up is over, so that a first request runs at full speed: the server announces a model
     * only then. A request that comes earlier stops the warm-up and runs at once, with kernels not yet compiled.
     */
    public void awaitWarmUp() throws InterruptedException {
        try {
            scheduler.warmedUp().get();
        } catch (ExecutionException e) {
            // never completed exceptionally: the warm-up's failures end it like its end does
        }
    }

    /** Waits until the work after the load ({@link Options#afterLoad()}) is done; at once when there is none. */
    public void awaitAfterLoad() throws InterruptedException {
        if (afterLoad != null) afterLoad.join();
    }

    @Override
    public ModelDescription description() {
        return description;
    }

    /** The trained context length from the file (the served one may be smaller). */
    public int trainedContextLength() {
        return model.config().contextLength();
    }

    public Tokenizer tokenizer() {
        return tokenizer;
    }

    @Override
    public int[] chatPrompt(List<ChatMessage> messages) {
        return chatPrompt.tokens(messages);
    }

    @Override
    public int vocabularySize() {
        return model.config().vocabSize();
    }

    @Override
    public int[] chatPrompt(List<ChatMessage> messages, int maxTokens) {
        int[] tokens = chatPrompt.tokens(messages, maxTokens);
        if (tokens.length > maxTokens) {
            throw new dev.inferd.engine.tokenizer.TooManyTokensException(tokens.length, maxTokens);
        }
        return tokens;
    }

    @Override
    public int[] textPrompt(String prompt, int maxTokens) {
        return tokenizer.encode(prompt, true, true, maxTokens);
    }

    @Override
    public ChatFormat chatFormat() {
        return chatPrompt.format();
    }

    @Override
    public int[] chatPrompt(RenderedPrompt prompt) {
        return chatPrompt.tokens(prompt);
    }

    @Override
    public int[] chatPrompt(RenderedPrompt prompt, int maxTokens) {
        int[] tokens = chatPrompt.tokens(prompt, maxTokens);
        if (tokens.length > maxTokens) {
            throw new dev.inferd.engine.tokenizer.TooManyTokensException(tokens.length, maxTokens);
        }
        return tokens;
    }

    @Override
    public TokenVocabulary vocabulary() {
        return TokenVocabulary.of(tokenizer);
    }

    @Override
    public int[] textPrompt(String prompt) {
        return tokenizer.encode(prompt, true, true);
    }

    @Override
    public Generation submit(GenerationRequest request) {
        int[] prompt = request.prompt();
        int context = description.contextLength();
        if (prompt.length == 0) throw new IllegalArgumentException("the prompt is empty");
        if (prompt.length >= context) {
            throw new IllegalArgumentException("the prompt has " + prompt.length + " tokens; the context holds " + context);
        }
        scheduler.checkFits(prompt.length, request.maxTokens());
        var generation = new Generation();
        if (request.maxTokens() == 0) {
            for (int c = 0; c < request.n(); c++) generation.finish(c, FinishReason.LENGTH);
            generation.end(new GenerationResult(prompt.length, 0, 0));
            return generation;
        }
        var task = new GenerationTask(request, generation, tokenizer, model.config().vocabSize(), context);
        if (!scheduler.submit(task)) {
            int retry = scheduler.retryAfterSeconds();
            throw new BusyException("the server is busy: " + scheduler.config().maxQueued()
                    + " requests are already waiting; retry in " + retry + " s", retry);
        }
        return generation;
    }

    /** Turns speculative decoding (a draft model's, or prompt lookup) off or back on for what runs next: for comparisons. */
    public void setSpeculating(boolean speculating) {
        scheduler.setSpeculating(speculating);
    }

    /** The scheduler's current figures (queue, sequences, KV blocks, token counters), for metrics. */
    public SchedulerStats stats() {
        return scheduler.stats();
    }

    /** Stops the scheduler (requests still running or queued fail) and unmaps the file. */
    @Override
    public void close() {
        scheduler.close();
        if (afterLoad != null) {
            boolean interrupted = false;
            while (afterLoad.isAlive()) {
                try {
                    afterLoad.join(); // it reads the mapping that closing unmaps
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
        }
        gguf.close();
        if (draftGguf != null) draftGguf.close();
    }
}
