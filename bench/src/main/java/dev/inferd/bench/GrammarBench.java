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
import dev.inferd.engine.grammar.json.JsonSchemaCompiler;
import dev.inferd.engine.model.Model;
import dev.inferd.engine.model.synthetic.SyntheticByteLevelVocabulary;
import dev.inferd.engine.model.synthetic.SyntheticModel;
import dev.inferd.engine.sample.Sampler;

import java.io.IOException;
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
 * grammar compilation of a nested tool schema, token-mask time per step (p50/p99, the first
 * sequence through a fresh grammar apart from later ones, whose masks are mostly cached), and
 * decoding speed of the llama-3.2-1b shape with and without the mask.
 *
 * <pre>java ... dev.inferd.bench.GrammarBench [model.gguf] [tokens]</pre>
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
        int size = SyntheticByteLevelVocabulary.LLAMA3_SIZE;

        long t0 = System.nanoTime();
        byte[][] bytes = SyntheticByteLevelVocabulary.tokenBytes(size);
        int eot = SyntheticByteLevelVocabulary.eot(size);
        int eos = SyntheticByteLevelVocabulary.eos(size);
        var vocabulary = TokenVocabulary.of(bytes, new int[] {eos, eot});
        System.out.printf(Locale.ROOT, "vocabulary: %d tokens, trie of %d nodes built in %.0f ms%n", size,
                vocabulary.trieNodes(), (System.nanoTime() - t0) / 1e6);

        Object schema = toolSchema();
        double[] compileMs = new double[30];
        double[] compileCpuMs = new double[30];
        Grammar grammar = null;
        for (int i = 0; i < compileMs.length; i++) {
            long c = CPU.getCurrentThreadCpuTime();
            long a = System.nanoTime();
            grammar = JsonSchemaCompiler.compile(schema);
            compileMs[i] = (System.nanoTime() - a) / 1e6;
            compileCpuMs[i] = (CPU.getCurrentThreadCpuTime() - c) / 1e6;
        }
        System.out.printf(Locale.ROOT, "compile (nested tool schema, %d states): first %.1f ms (cpu %.1f), then p50 %.1f ms (cpu %.1f)%n",
                grammar.stateCount(), compileMs[0], compileCpuMs[0], percentile(Arrays.copyOfRange(compileMs, 1, compileMs.length), 50),
                percentile(Arrays.copyOfRange(compileCpuMs, 1, compileCpuMs.length), 50));

        maskTimes(grammar, vocabulary, bytes);
        if (!model.equals("-")) decodeSpeed(Path.of(model), vocabulary, schema, grammar, tokens);
    }

    /** Sequences of random allowed tokens (a few favourites per step, as a model's softmax has), timing each mask. */
    private static void maskTimes(Grammar grammar, TokenVocabulary vocabulary, byte[][] bytes) {
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
        System.out.printf(Locale.ROOT, "mask, first sequence (cold grammar): %d steps, p50 %.1f us, p99 %.1f us (cpu p50 %.1f, p99 %.1f)%n",
                cold.size(), percentile(cold, 50), percentile(cold, 99), percentile(coldCpu, 50), percentile(coldCpu, 99));
        System.out.printf(Locale.ROOT, "mask, next %d sequences: %d steps, p50 %.1f us, p99 %.1f us (cpu p50 %.1f, p99 %.1f); %d of %d finished%n",
                sequences - 1, warm.size(), percentile(warm, 50), percentile(warm, 99), percentile(warmCpu, 50), percentile(warmCpu, 99),
                finished, sequences);
        var all = new ArrayList<>(cold);
        all.addAll(warm);
        System.out.printf(Locale.ROOT, "mask, all %d steps: p50 %.1f us, p99 %.1f us%n", all.size(), percentile(all, 50), percentile(all, 99));
    }

    private static void decodeSpeed(Path file, TokenVocabulary vocabulary, Object schema, Grammar warmGrammar, int tokens)
            throws IOException {
        if (!Files.isRegularFile(file)) {
            var spec = SyntheticModel.Spec.parse("llama-3.2-1b:Q4_0");
            System.out.printf("writing %s (synthetic llama-3.2-1b Q4_0)...%n", file);
            spec.write(file);
        }
        try (GGUFFile gguf = GGUFFile.open(file)) {
            Model model = Model.load(gguf, 1);
            WarmUp.run(model, () -> false);
            int vocab = model.config().vocabSize();
            if (vocab != vocabulary.size()) throw new IllegalArgumentException("the model has " + vocab + " tokens, the mask " + vocabulary.size());
            var stepUs = new ArrayList<Double>();
            double fresh = decode(model, JsonSchemaCompiler.compile(schema), vocabulary, tokens, new ArrayList<>());
            double[] free = new double[2];
            double[] cached = new double[2];
            for (int round = 0; round < 2; round++) { // alternated, so that drift on a shared machine hits both
                free[round] = decode(model, null, vocabulary, tokens, null);
                cached[round] = decode(model, warmGrammar, vocabulary, tokens, stepUs);
            }
            double f = (free[0] + free[1]) / 2;
            double c = (cached[0] + cached[1]) / 2;
            System.out.printf(Locale.ROOT, "decode %s, %d tokens: unconstrained %.2f t/s (%.2f, %.2f); constrained, grammar in use before %.2f t/s (%.2f, %.2f): %+.1f%%; constrained, new grammar %.2f t/s: %+.1f%%%n",
                    file.getFileName(), tokens, f, free[0], free[1], c, cached[0], cached[1], 100 * (c - f) / f, fresh, 100 * (fresh - f) / f);
            System.out.printf(Locale.ROOT, "per generated token under the grammar in use before (mask + apply + accept): p50 %.1f us, p99 %.1f us%n",
                    percentile(stepUs, 50), percentile(stepUs, 99));
        }
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
