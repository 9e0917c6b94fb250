package dev.inferd.bench;

import dev.inferd.engine.model.Batch;
import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.batch.WarmUp;
import dev.inferd.engine.sample.SamplingParams;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.grammar.Grammar;
import dev.inferd.engine.grammar.GrammarMatcher;
import dev.inferd.engine.grammar.TokenMasks;
import dev.inferd.engine.grammar.TokenVocabulary;
import dev.inferd.engine.chat.output.ToolCallFormat;
import dev.inferd.engine.chat.output.ToolCallGrammar;
import dev.inferd.engine.grammar.json.GrammarCache;
import dev.inferd.engine.grammar.json.JsonSchemaCompiler;
import dev.inferd.engine.tokenizer.Tokenizer;
import dev.inferd.engine.model.Model;
import dev.inferd.engine.model.synthetic.SyntheticByteLevelVocabulary;
import dev.inferd.engine.model.synthetic.SyntheticModel;
import dev.inferd.engine.sample.Sampler;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The cost of constrained decoding on a 128k-token vocabulary (Llama 3's size, byte-level BPE):
 * grammar compilation of a forced call of a nested tool schema (as the server compiles it), token-mask
 * time per step (p50/p99, the first sequence through a fresh grammar apart from later ones, whose
 * masks are mostly cached), and decoding speed of the llama-3.2-1b shape with and without the mask.
 *
 * <pre>./inferd bench --grammar -m synthetic:llama-3.2-1b:Q4_0 [-n tokens] [-r rounds]
 * java ... dev.inferd.bench.GrammarBench [model.gguf|-] [tokens]</pre>
 *
 * Without a model file it writes {@code synthetic:llama-3.2-1b:Q4_0} to the given path first; with
 * {@code -} as the model it measures compilation and masks only. The synthetic model's own vocabulary
 * is SentencePiece; the mask comes from the synthetic byte-level vocabulary of the same size, which
 * is what the mask costs depend on (decode speed does not depend on which tokens are chosen).
 */
public final class GrammarBench {
    /** Thread CPU time, which a loaded machine inflates far less than wall time. */
    private static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();

    private GrammarBench() {
    }

    public static void main(String[] args) throws IOException {
        String model = args.length > 0 ? args[0] : "-";
        int tokens = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        run(model.equals("-") ? null : Path.of(model), tokens, 3, System.out);
    }

    /**
     * Measures and prints compilation, masks and (with a model) decoding.
     *
     * @param model a GGUF file (written as {@code synthetic:llama-3.2-1b:Q4_0} when absent), or null for no decoding
     * @param tokens generated tokens per decoding run
     * @param rounds decoding runs with and without the constraint, alternated
     */
    public static void run(Path model, int tokens, int rounds, PrintStream out) throws IOException {
        int size = SyntheticByteLevelVocabulary.LLAMA3_SIZE;
        long t0 = System.nanoTime();
        byte[][] bytes = SyntheticByteLevelVocabulary.tokenBytes(size);
        int eot = SyntheticByteLevelVocabulary.eot(size);
        int eos = SyntheticByteLevelVocabulary.eos(size);
        var vocabulary = TokenVocabulary.of(bytes, new int[] {eos, eot});
        out.printf(Locale.ROOT, "vocabulary: %d tokens (synthetic byte-level BPE, Llama 3's size), trie of %d nodes built in %.0f ms%n",
                size, vocabulary.trieNodes(), (System.nanoTime() - t0) / 1e6);

        Object schema = toolSchema();
        var tools = List.of(new ToolCallGrammar.Tool("search", schema));
        double[] compileMs = new double[30];
        double[] compileCpuMs = new double[30];
        Grammar grammar = null;
        for (int i = 0; i < compileMs.length; i++) {
            var cache = new GrammarCache(4, OPTIONS);
            long c = CPU.getCurrentThreadCpuTime();
            long a = System.nanoTime();
            grammar = ToolCallGrammar.forced(ToolCallFormat.LLAMA3, tools, false, cache);
            compileMs[i] = (System.nanoTime() - a) / 1e6;
            compileCpuMs[i] = (CPU.getCurrentThreadCpuTime() - c) / 1e6;
        }
        var cache = new GrammarCache(4, OPTIONS);
        ToolCallGrammar.forced(ToolCallFormat.LLAMA3, tools, false, cache);
        long a = System.nanoTime();
        int lookups = 1000;
        for (int i = 0; i < lookups; i++) ToolCallGrammar.forced(ToolCallFormat.LLAMA3, tools, false, cache);
        double cachedUs = (System.nanoTime() - a) / 1e3 / lookups;
        out.printf(Locale.ROOT, "compile (forced call of a nested tool schema, Llama 3 syntax, %d states): first %.1f ms (cpu %.1f), "
                        + "then p50 %.1f ms (cpu %.1f); from the cache %.1f us%n",
                grammar.stateCount(), compileMs[0], compileCpuMs[0], percentile(Arrays.copyOfRange(compileMs, 1, compileMs.length), 50),
                percentile(Arrays.copyOfRange(compileCpuMs, 1, compileCpuMs.length), 50), cachedUs);

        maskTimes(grammar, vocabulary, bytes, out);
        budgetMaskTimes(grammar, vocabulary, bytes, out);
        if (model != null) {
            decodeSpeed(model, vocabulary, tools, tokens, Math.max(1, rounds), out);
        }
    }

    private static final JsonSchemaCompiler.Options OPTIONS = JsonSchemaCompiler.Options.DEFAULT;

    /** Sequences of random allowed tokens (a few favourites per step, as a model's softmax has), timing each mask. */
    private static void maskTimes(Grammar grammar, TokenVocabulary vocabulary, byte[][] bytes, PrintStream out) {
        long[] mask = new long[vocabulary.maskWords()];
        int[] allowed = new int[vocabulary.size()];
        var cold = new ArrayList<Double>();
        var warm = new ArrayList<Double>();
        var coldCpu = new ArrayList<Double>();
        var warmCpu = new ArrayList<Double>();
        var random = new SplittableRandom(41);
        int finished = 0;
        int sequences = 40;
        for (int s = 0; s < sequences; s++) {
            GrammarMatcher m = grammar.matcher(vocabulary);
            for (int step = 0; step < 300; step++) {
                long c = CPU.getCurrentThreadCpuTime();
                long a = System.nanoTime();
                m.fillMask(mask);
                double us = (System.nanoTime() - a) / 1e3;
                (s == 0 ? cold : warm).add(us);
                (s == 0 ? coldCpu : warmCpu).add((CPU.getCurrentThreadCpuTime() - c) / 1e3);
                int n = 0;
                for (int w = 0; w < mask.length; w++) {
                    long bitsLeft = mask[w];
                    while (bitsLeft != 0) {
                        allowed[n++] = (w << 6) + Long.numberOfTrailingZeros(bitsLeft);
                        bitsLeft &= bitsLeft - 1;
                    }
                }
                if (n == 0) throw new IllegalStateException("no token allowed");
                // favour short tokens now and then, so that strings end and the output completes
                int token = allowed[random.nextInt(random.nextInt(3) == 0 ? n : Math.min(n, 1 + random.nextInt(6)))];
                if (random.nextInt(4) == 0) {
                    for (int k = 0; k < 8; k++) {
                        int candidate = allowed[random.nextInt(n)];
                        if (bytes[candidate] == null || bytes[candidate].length <= 2) token = candidate;
                    }
                }
                m.accept(token);
                if (m.isEnded()) {
                    finished++;
                    break;
                }
            }
        }
        out.printf(Locale.ROOT, "mask, first sequence (cold grammar): %d steps, p50 %.1f us, p99 %.1f us (cpu p50 %.1f, p99 %.1f)%n",
                cold.size(), percentile(cold, 50), percentile(cold, 99), percentile(coldCpu, 50), percentile(coldCpu, 99));
        out.printf(Locale.ROOT, "mask, next %d sequences: %d steps, p50 %.1f us, p99 %.1f us (cpu p50 %.1f, p99 %.1f); %d of %d finished%n",
                sequences - 1, warm.size(), percentile(warm, 50), percentile(warm, 99), percentile(warmCpu, 50), percentile(warmCpu, 99),
                finished, sequences);
        var all = new ArrayList<>(cold);
        all.addAll(warm);
        out.printf(Locale.ROOT, "mask, all %d steps: p50 %.1f us, p99 %.1f us%n", all.size(), percentile(all, 50), percentile(all, 99));
    }

    /** Extra tokens over the shortest complete output in {@link #budgetMaskTimes}: the whole output is steered. */
    private static final int BUDGET_SLACK = 8;

    /**
     * As {@link #maskTimes}, each sequence limited to its shortest complete output plus a few tokens:
     * every step narrows the mask to the tokens that leave room to complete ({@link GrammarMatcher#restrictToBudget}).
     */
    private static void budgetMaskTimes(Grammar grammar, TokenVocabulary vocabulary, byte[][] bytes, PrintStream out) {
        long[] mask = new long[vocabulary.maskWords()];
        int[] allowed = new int[vocabulary.size()];
        var times = new ArrayList<Double>();
        var cpu = new ArrayList<Double>();
        var random = new SplittableRandom(43);
        int least = grammar.matcher(vocabulary).tokensToComplete();
        int limit = least + BUDGET_SLACK;
        int complete = 0;
        int sequences = 40;
        for (int s = 0; s < sequences; s++) {
            GrammarMatcher m = grammar.matcher(vocabulary);
            for (int step = 0; step < limit && !m.isEnded(); step++) {
                long c = CPU.getCurrentThreadCpuTime();
                long a = System.nanoTime();
                m.fillMask(mask);
                m.restrictToBudget(mask, limit - step);
                times.add((System.nanoTime() - a) / 1e3);
                cpu.add((CPU.getCurrentThreadCpuTime() - c) / 1e3);
                int n = 0;
                for (int w = 0; w < mask.length; w++) {
                    long bitsLeft = mask[w];
                    while (bitsLeft != 0) {
                        allowed[n++] = (w << 6) + Long.numberOfTrailingZeros(bitsLeft);
                        bitsLeft &= bitsLeft - 1;
                    }
                }
                if (n == 0) throw new IllegalStateException("no token allowed");
                int token = allowed[random.nextInt(random.nextInt(3) == 0 ? n : Math.min(n, 1 + random.nextInt(6)))];
                m.accept(token);
            }
            if (m.isEnded() || m.isComplete()) complete++;
        }
        out.printf(Locale.ROOT, "mask under a token limit (shortest complete output %d tokens, limit %d): %d steps, p50 %.1f us, "
                        + "p99 %.1f us (cpu p50 %.1f, p99 %.1f); %d of %d complete within the limit%n",
                least, limit, times.size(), percentile(times, 50), percentile(times, 99), percentile(cpu, 50), percentile(cpu, 99),
                complete, sequences);
    }

    private static void decodeSpeed(Path file, TokenVocabulary vocabulary, List<ToolCallGrammar.Tool> tools, int tokens,
                                    int rounds, PrintStream out) throws IOException {
        if (!Files.isRegularFile(file)) {
            var spec = SyntheticModel.Spec.parse("llama-3.2-1b:Q4_0");
            out.printf("writing %s (synthetic llama-3.2-1b Q4_0)...%n", file);
            spec.write(file);
        }
        try (GGUFFile gguf = GGUFFile.open(file)) {
            Model model = Model.load(gguf, 1);
            WarmUp.run(model, () -> false);
            int vocab = model.config().vocabSize();
            // The mask's cost depends on the vocabulary's bytes, decoding's on the model: a synthetic model of
            // Llama 3's size is masked with the byte-level vocabulary above, other models with their own.
            TokenVocabulary masks = vocab == vocabulary.size() ? vocabulary : TokenVocabulary.of(Tokenizer.fromGGUF(gguf));
            var stepUs = new ArrayList<Double>();
            double fresh = decode(model, ToolCallGrammar.forced(ToolCallFormat.LLAMA3, tools, false, new GrammarCache(4, OPTIONS)),
                    masks, tokens, new ArrayList<>());
            Grammar inUse = ToolCallGrammar.forced(ToolCallFormat.LLAMA3, tools, false, new GrammarCache(4, OPTIONS));
            decode(model, inUse, masks, tokens, null);
            double[] free = new double[rounds];
            double[] constrained = new double[rounds];
            for (int round = 0; round < rounds; round++) { // alternated, so that drift on a shared machine hits both
                free[round] = decode(model, null, masks, tokens, null);
                constrained[round] = decode(model, inUse, masks, tokens, stepUs);
            }
            double f = Arrays.stream(free).average().orElseThrow();
            double c = Arrays.stream(constrained).average().orElseThrow();
            out.printf(Locale.ROOT, "decode %s, %d tokens x %d rounds: unconstrained %.2f t/s %s; constrained (grammar in use before) %.2f t/s %s: %+.1f%%%n",
                    file.getFileName(), tokens, rounds, f, Arrays.toString(round2(free)), c, Arrays.toString(round2(constrained)),
                    100 * (c - f) / f);
            out.printf(Locale.ROOT, "decode under a grammar never used before (first sequence): %.2f t/s: %+.1f%%%n", fresh, 100 * (fresh - f) / f);
            out.printf(Locale.ROOT, "constraint time per generated token (mask + apply + accept): p50 %.1f us, p99 %.1f us%n",
                    percentile(stepUs, 50), percentile(stepUs, 99));
        }
    }

    private static double[] round2(double[] values) {
        return Arrays.stream(values).map(v -> Math.round(v * 100) / 100.0).toArray();
    }

    /**
     * Tokens per second over {@code tokens} generated tokens; under a grammar, a finished output starts
     * over. The constraint's own time per token goes to {@code stepUs}.
     */
    private static double decode(Model model, Grammar grammar, TokenVocabulary vocabulary, int tokens, List<Double> stepUs) {
        int vocab = vocabulary.size();
        var sampler = new Sampler(new SamplingParams(1f, 1f, 7L, 0f, 0f, Map.of()), vocab, 7);
        KVCache cache = model.newKVCache(1, tokens + 2);
        long[] mask = new long[vocabulary.maskWords()];
        GrammarMatcher matcher = grammar == null ? null : grammar.matcher(vocabulary);
        var batch = new Batch(1);
        int token = 1;
        long start = System.nanoTime();
        for (int pos = 0; pos < tokens; pos++) {
            batch.clear();
            batch.add(0, pos, token, true);
            var logits = model.forward(batch, cache);
            float[] data = logits.data();
            int offset = logits.offset(0);
            long a = System.nanoTime();
            if (matcher != null) {
                if (matcher.isEnded()) matcher = grammar.matcher(vocabulary);
                matcher.fillMask(mask);
                TokenMasks.apply(mask, data, offset, vocab);
            }
            long b = System.nanoTime();
            token = sampler.sample(data, offset);
            long c = System.nanoTime();
            if (matcher != null) {
                matcher.accept(token);
                if (stepUs != null) stepUs.add(((b - a) + (System.nanoTime() - c)) / 1e3);
            }
        }
        return tokens / ((System.nanoTime() - start) / 1e9);
    }

    private static double percentile(List<Double> values, int p) {
        return percentile(values.stream().mapToDouble(Double::doubleValue).toArray(), p);
    }

    private static double percentile(double[] values, int p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    /** A tool schema as agent frameworks send them: nested objects, arrays, enums, optional members. */
    private static Object toolSchema() {
        return obj("type", "object",
                "properties", obj(
                        "query", obj("type", "string", "description", "What to search for"),
                        "filters", obj("type", "object",
                                "properties", obj(
                                        "category", obj("type", "string", "enum", List.of("books", "music", "films", "games")),
                                        "price", obj("type", "object", "properties", obj(
                                                        "min", obj("type", "number", "minimum", 0),
                                                        "max", obj("type", "number", "minimum", 0)),
                                                "additionalProperties", false),
                                        "in_stock", obj("type", "boolean"),
                                        "released_after", obj("type", "string", "format", "date")),
                                "required", List.of("category"),
                                "additionalProperties", false),
                        "sort", obj("type", "array", "items", obj("type", "object",
                                "properties", obj(
                                        "field", obj("type", "string", "enum", List.of("price", "rating", "date")),
                                        "order", obj("type", "string", "enum", List.of("asc", "desc"))),
                                "required", List.of("field", "order"),
                                "additionalProperties", false), "maxItems", 3),
                        "limit", obj("type", "integer", "minimum", 1, "maximum", 100)),
                "required", List.of("query", "filters"),
                "additionalProperties", false);
    }

    private static Map<String, Object> obj(Object... kv) {
        var m = new LinkedHashMap<String, Object>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }
}
