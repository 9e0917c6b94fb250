package dev.inferd.engine.generate;

import dev.inferd.engine.batch.Batch;
import dev.inferd.engine.batch.KVCache;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.model.Logits;
import dev.inferd.engine.model.Model;
import dev.inferd.engine.sample.Sampler;
import dev.inferd.engine.tokenizer.Tokenizer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A GGUF model served in-process: tokenizer, chat template, transformer and KV cache behind the
 * {@link TextGenerator} the server uses.
 *
 * <p>One request runs at a time (a fair lock queues the others); its {@code n} choices decode together
 * in one batch after a single shared prefill. Sequence 0 keeps the last request's tokens, so a request
 * that starts with them (the next turn of a chat) skips prefilling that prefix.
 */
public final class LocalTextGenerator implements TextGenerator {
    /** Prompt tokens per forward pass while prefilling. */
    static final int PREFILL_CHUNK = 512;
    /** Most choices one request may ask for ({@code n}); OpenAI allows 128. */
    public static final int MAX_CHOICES = 128;

    /**
     * @param id the model name clients use; null for the file name without {@code .gguf}
     * @param ownedBy null to take it from the file's metadata
     * @param contextLength 0 for the model's trained context, capped at {@link #DEFAULT_MAX_CONTEXT}
     */
    public record Options(String id, String ownedBy, int contextLength) {
        public static final Options DEFAULTS = new Options(null, null, 0);
    }

    /** The context used when none is asked for: bounds KV memory for models trained on 128k. */
    public static final int DEFAULT_MAX_CONTEXT = 4096;

    private final GGUFFile gguf;
    private final Model model;
    private final Tokenizer tokenizer;
    private final ChatPrompt chatPrompt;
    private final ModelDescription description;
    private final KVCache cache;
    private final Batch batch;
    private final ReentrantLock lock = new ReentrantLock(true);
    /** The tokens whose keys and values sequence 0 holds, for prefix reuse. */
    private int[] cachedTokens = new int[0];

    private LocalTextGenerator(GGUFFile gguf, Options options) throws IOException {
        this.gguf = gguf;
        this.model = Model.load(gguf, PREFILL_CHUNK);
        this.tokenizer = Tokenizer.fromGGUF(gguf);
        this.chatPrompt = ChatPrompt.forModel(gguf, tokenizer);
        int trained = model.config().contextLength();
        int context = options.contextLength() > 0 ? options.contextLength() : Math.min(trained, DEFAULT_MAX_CONTEXT);
        Path file = gguf.path();
        String fileName = file.getFileName().toString();
        String id = options.id() != null ? options.id()
                : fileName.endsWith(".gguf") ? fileName.substring(0, fileName.length() - 5) : fileName;
        this.description = new ModelDescription(id,
                options.ownedBy() != null ? options.ownedBy() : ModelFacts.owner(gguf),
                Files.getLastModifiedTime(file).toMillis() / 1000,
                gguf.architecture(), ModelFacts.parameterCount(gguf), ModelFacts.quantization(gguf), context);
        this.cache = model.newKVCache(MAX_CHOICES, context);
        this.batch = new Batch(Math.max(PREFILL_CHUNK, MAX_CHOICES));
    }

    /** Maps the file and loads everything a request needs; weights stay in the mapping. */
    public static LocalTextGenerator open(Path file, Options options) throws IOException {
        GGUFFile gguf = GGUFFile.open(file);
        try {
            return new LocalTextGenerator(gguf, options);
        } catch (IOException | RuntimeException e) {
            gguf.close();
            throw e;
        }
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
    public int[] textPrompt(String prompt) {
        return tokenizer.encode(prompt, true, true);
    }

    @Override
    public GenerationResult generate(GenerationRequest request, GenerationListener listener) {
        int[] prompt = request.prompt();
        int context = description.contextLength();
        if (prompt.length == 0) throw new IllegalArgumentException("the prompt is empty");
        if (prompt.length >= context) {
            throw new IllegalArgumentException("the prompt has " + prompt.length + " tokens; the context holds " + context);
        }
        if (request.n() > MAX_CHOICES) throw new IllegalArgumentException("n is at most " + MAX_CHOICES);
        lock.lock();
        try {
            return new Run(request, listener).execute();
        } finally {
            lock.unlock();
        }
    }

    /** One request's decoding state; lives only while the lock is held. */
    private final class Run {
        private final GenerationRequest request;
        private final GenerationListener listener;
        private final int[] prompt;
        private final Choice[] choices;
        private final LogprobReporter logprobs;
        private int cachedPrefix;

        Run(GenerationRequest request, GenerationListener listener) {
            this.request = request;
            this.listener = listener;
            this.prompt = request.prompt();
            this.choices = new Choice[request.n()];
            long seed = request.sampling().seed() != null ? request.sampling().seed() : System.nanoTime();
            for (int i = 0; i < choices.length; i++) {
                choices[i] = new Choice(i, new Sampler(request.sampling(),
                        model.config().vocabSize(), seed + i), new ChoiceText(request.stop()));
            }
            this.logprobs = request.wantsLogprobs() ? new LogprobReporter(tokenizer, request.logprobs()) : null;
        }

        GenerationResult execute() {
            Logits logits = prefill();
            if (logits == null) return result();
            float[] first = logits.row(0);
            for (int i = 1; i < choices.length; i++) cache.copy(0, i, prompt.length);
            for (Choice c : choices) {
                c.position = prompt.length;
                if (request.maxTokens() == 0) finish(c, FinishReason.LENGTH);
            }
            float[] source = first;
            boolean firstStep = true;
            while (true) {
                if (listener.isCancelled()) break;
                batch.clear();
                for (Choice c : choices) {
                    if (c.finished) continue;
                    int offset = firstStep ? 0 : logits.offset(c.logitsRow);
                    float[] row = firstStep ? source : logits.data();
                    int token = c.sampler.sample(row, offset);
                    if (accept(c, token, row, offset)) c.logitsRow = batch.add(c.index, c.position++, token, true);
                }
                firstStep = false;
                if (batch.isEmpty()) break;
                logits = model.forward(batch, cache);
                rememberSequenceZero();
            }
            return result();
        }

        /** Prefills the prompt into sequence 0, reusing what it already holds; null when cancelled. */
        private Logits prefill() {
            int reuse = commonPrefix(cachedTokens, prompt);
            // The last prompt token always runs, because its logits start the generation.
            cachedPrefix = Math.min(reuse, prompt.length - 1);
            cache.truncate(0, cachedPrefix);
            for (int i = 1; i < choices.length; i++) cache.truncate(i, 0);
            cachedTokens = Arrays.copyOf(prompt, cachedPrefix);
            Logits logits = null;
            for (int start = cachedPrefix; start < prompt.length; start += PREFILL_CHUNK) {
                if (listener.isCancelled()) return null;
                batch.clear();
                int end = Math.min(prompt.length, start + PREFILL_CHUNK);
                for (int p = start; p < end; p++) batch.add(0, p, prompt[p], p == prompt.length - 1);
                logits = model.forward(batch, cache);
            }
            cachedTokens = prompt.clone();
            return logits;
        }

        /** Sequence 0 now also holds choice 0's newest token: keep the record of its tokens in step. */
        private void rememberSequenceZero() {
            Choice zero = choices[0];
            if (zero.position > cachedTokens.length && zero.lastToken >= 0) {
                cachedTokens = Arrays.copyOf(cachedTokens, zero.position);
                cachedTokens[zero.position - 1] = zero.lastToken;
            }
        }

        /**
         * Handles a sampled token: text out, stop and length checks.
         *
         * @return whether the choice goes on (the token must then be fed back)
         */
        private boolean accept(Choice c, int token, float[] logitsRow, int offset) {
            if (tokenizer.isEndOfGeneration(token)) {
                finish(c, FinishReason.STOP);
                return false;
            }
            c.generated++;
            c.lastToken = token;
            c.sampler.accept(token);
            TokenLogprob lp = logprobs != null ? logprobs.report(token, logitsRow, offset, model.config().vocabSize()) : null;
            ChoiceText.Release release = c.text.add(tokenizer.tokenBytes(token), lp);
            emit(c, release);
            if (release.stopped()) {
                finishWithoutFlush(c, FinishReason.STOP);
                return false;
            }
            boolean roomForNext = c.position + 1 < description.contextLength();
            if (c.generated >= request.maxTokens() || !roomForNext) {
                finish(c, FinishReason.LENGTH);
                return false;
            }
            return true;
        }

        private void finish(Choice c, FinishReason reason) {
            emit(c, c.text.flush());
            finishWithoutFlush(c, reason);
        }

        private void finishWithoutFlush(Choice c, FinishReason reason) {
            c.finished = true;
            listener.onFinish(c.index, reason);
        }

        private void emit(Choice c, ChoiceText.Release release) {
            if (!release.text().isEmpty() || !release.tokens().isEmpty()) {
                listener.onText(c.index, release.text(), release.tokens());
            }
        }

        private GenerationResult result() {
            int completion = 0;
            for (Choice c : choices) completion += c.generated;
            return new GenerationResult(prompt.length, completion, cachedPrefix);
        }
    }

    private static int commonPrefix(int[] a, int[] b) {
        int n = Math.min(a.length, b.length);
        int i = 0;
        while (i < n && a[i] == b[i]) i++;
        return i;
    }

    /** One choice: its sequence in the KV cache is its index. */
    private static final class Choice {
        final int index;
        final Sampler sampler;
        final ChoiceText text;
        int position;
        int generated;
        int logitsRow = -1;
        int lastToken = -1;
        boolean finished;

        Choice(int index, Sampler sampler, ChoiceText text) {
            this.index = index;
            this.sampler = sampler;
            this.text = text;
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            gguf.close();
        } finally {
            lock.unlock();
        }
    }
}
