package dev.inferd.bench;

import dev.inferd.engine.batch.SchedulerStats;
import dev.inferd.engine.generate.Generation;
import dev.inferd.engine.generate.GenerationEvent;
import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.model.Batch;
import dev.inferd.engine.model.Model;
import dev.inferd.engine.sample.SamplingParams;
import dev.inferd.engine.tokenizer.Tokenizer;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Speculative decoding measured through the scheduler: the same generator with drafting on and off in
 * alternating rounds (so that both see the same hour of a shared machine), greedy, a fixed number of
 * tokens per stream (end of generation banned), for each number of concurrent streams: tokens/s both
 * ways, the speed-up, the share of draft tokens the target kept and the tokens each stream gains a step
 * (the steps plain decoding took over those speculative decoding took: a step in which not every stream
 * decodes yet, as when the streams' requests arrive a step apart, counts the same in both). Also
 * the cost of verification: one forward pass of r rows of one sequence against a pass of one row.
 */
public final class SpeculativeBench {
    /** Prose with repeats: prompt lookup finds drafts wherever the output echoes it. */
    public static final String PROMPT = "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. "
            + "Once upon a time there was a little girl who lived in a village near the forest. "
            + "Once upon a time there was a little girl who lived in a village near the forest.";

    private final LocalTextGenerator generator;
    private final PrintStream out;

    public SpeculativeBench(LocalTextGenerator generator, PrintStream out) {
        this.generator = generator;
        this.out = out;
    }

    /** One round of one setting: tokens/s over all streams, and the scheduler's draft counters' change. */
    record Round(double tokensPerSecond, long drafted, long accepted, long steps, long generated) {
    }

    /** Runs {@code rounds} alternating rounds of plain and speculative decoding per stream count and prints the table. */
    public void run(String what, List<Integer> streamCounts, int tokens, int rounds) throws InterruptedException {
        int[] prompt = generator.textPrompt(PROMPT);
        var sampling = new SamplingParams(0f, 1f, 1L, 0f, 0f, endOfGenerationBanned(generator.tokenizer()));
        out.printf(Locale.ROOT, "speculative decoding: %s; prompt %d tokens, %d generated tokens per stream, greedy, "
                + "medians of %d alternating rounds%n", what, prompt.length, tokens, rounds);
        out.println("| streams | plain t/s | speculative t/s | speed-up | acceptance | tokens per step and stream |");
        out.println("|---:|---:|---:|---:|---:|---:|");
        for (int streams : streamCounts) {
            var request = new GenerationRequest(prompt, 1, tokens, List.of(), sampling, -1);
            generator.setSpeculating(false);
            measure(request, streams); // unmeasured: compiles, fills the prefix cache
            generator.setSpeculating(true);
            measure(request, streams);
            double[] plain = new double[rounds];
            double[] spec = new double[rounds];
            double[] ratio = new double[rounds];
            long drafted = 0, accepted = 0, steps = 0, plainSteps = 0;
            for (int r = 0; r < rounds; r++) {
                // alternate which goes first, so that a drift of the machine's speed favours neither
                boolean specFirst = r % 2 == 1;
                Round a = null, b = null;
                for (int i = 0; i < 2; i++) {
                    boolean on = (i == 0) == specFirst;
                    generator.setSpeculating(on);
                    Round m = measure(request, streams);
                    if (on) b = m; else a = m;
                }
                plain[r] = a.tokensPerSecond();
                spec[r] = b.tokensPerSecond();
                ratio[r] = spec[r] / plain[r];
                drafted += b.drafted();
                accepted += b.accepted();
                steps += b.steps();
                plainSteps += a.steps();
            }
            generator.setSpeculating(true);
            out.printf(Locale.ROOT, "| %d | %.2f | %.2f | %.2fx | %s | %.2f |%n", streams, median(plain), median(spec), median(ratio),
                    drafted == 0 ? "no drafts" : String.format(Locale.ROOT, "%.2f (%d of %d)", (double) accepted / drafted, accepted, drafted),
                    steps == 0 ? 0.0 : (double) plainSteps / steps);
        }
    }

    private Round measure(GenerationRequest request, int streams) throws InterruptedException {
        SchedulerStats before = generator.stats();
        long start = System.nanoTime();
        List<CompletableFuture<Integer>> runs = new ArrayList<>();
        for (int s = 0; s < streams; s++) {
            runs.add(CompletableFuture.supplyAsync(() -> consume(generator.submit(request)), Thread::startVirtualThread));
        }
        int tokens = 0;
        for (var r : runs) tokens += r.join();
        double seconds = (System.nanoTime() - start) / 1e9;
        SchedulerStats after = generator.stats();
        return new Round(tokens / seconds, after.draftTokens() - before.draftTokens(),
                after.acceptedDraftTokens() - before.acceptedDraftTokens(), after.steps() - before.steps(),
                after.tokensGenerated() - before.tokensGenerated());
    }

    private static int consume(Generation g) {
        try {
            while (true) {
                if (g.next() instanceof GenerationEvent.End end) return end.result().completionTokens();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Logit bias -100 on every end-of-generation token, so that every stream generates all its tokens. */
    static Map<Integer, Float> endOfGenerationBanned(Tokenizer tokenizer) {
        Map<Integer, Float> bias = new HashMap<>();
        for (int t = 0; t < tokenizer.vocabSize(); t++) if (tokenizer.isEndOfGeneration(t)) bias.put(t, -100f);
        return bias;
    }

    /**
     * The time of a forward pass of {@code rows} generated tokens of one sequence at {@code depth}, for each
     * of {@code rowCounts}: what verifying a draft of rows - 1 tokens costs. Prints each beside one row's.
     */
    public static void verificationCost(Model model, int depth, List<Integer> rowCounts, int repetitions, PrintStream out) {
        int maxRows = rowCounts.stream().mapToInt(Integer::intValue).max().orElse(1);
        int context = depth + maxRows + 1;
        KVCache cache = model.newKVCache(1, context);
        int vocab = model.config().vocabSize();
        // a prompt to attend to, in chunks the model takes
        int chunk = Math.max(1, Math.min(model.maxBatch(), 256));
        for (int from = 0; from < depth; from += chunk) {
            int n = Math.min(chunk, depth - from);
            var b = new Batch(n);
            for (int i = 0; i < n; i++) b.add(0, from + i, (from + i) * 7919 % vocab, i == n - 1, true);
            model.forward(b, cache);
        }
        double[] medians = new double[rowCounts.size()];
        for (int pass = 0; pass < 2; pass++) { // the first pass compiles the kernels of every batch size
            for (int c = 0; c < rowCounts.size(); c++) {
                int rows = rowCounts.get(c);
                var b = new Batch(rows);
                for (int i = 0; i < rows; i++) b.add(0, depth + i, (depth + i) * 31 % vocab, true, false);
                double[] times = new double[pass == 0 ? 2 : repetitions];
                for (int r = 0; r < times.length; r++) {
                    long t0 = System.nanoTime();
                    model.forward(b, cache);
                    times[r] = (System.nanoTime() - t0) / 1e6;
                }
                medians[c] = median(times);
            }
        }
        out.printf(Locale.ROOT, "verification cost: one sequence at depth %d, a pass of r generated rows (median of %d)%n",
                depth, repetitions);
        out.println("| rows | ms per pass | x one row |");
        out.println("|---:|---:|---:|");
        double one = medians[rowCounts.indexOf(1) >= 0 ? rowCounts.indexOf(1) : 0];
        for (int c = 0; c < rowCounts.size(); c++) {
            out.printf(Locale.ROOT, "| %d | %.2f | %.2f |%n", rowCounts.get(c), medians[c], medians[c] / one);
        }
    }

    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
}
