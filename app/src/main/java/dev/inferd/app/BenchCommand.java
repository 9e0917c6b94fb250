package dev.inferd.app;

import dev.inferd.engine.tensor.format.WeightMatrices;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inferd.app.models.ModelException;
import dev.inferd.app.models.ModelResolver;
import dev.inferd.app.models.ModelsConfig;
import dev.inferd.bench.BenchTest;
import dev.inferd.bench.CpuInfo;
import dev.inferd.bench.DecodeLimit;
import dev.inferd.bench.GrammarBench;
import dev.inferd.bench.SecondTurnBench;
import dev.inferd.bench.LlamaBench;
import dev.inferd.bench.MemoryBandwidth;
import dev.inferd.bench.ModelFootprint;
import dev.inferd.bench.TestResult;
import dev.inferd.engine.generate.AfterLoad;
import dev.inferd.engine.batch.WarmUp;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.gguf.GGUFFormatException;
import dev.inferd.engine.model.Model;
import dev.inferd.engine.model.UnsupportedModelException;
import dev.inferd.engine.model.synthetic.SyntheticModel;
import dev.inferd.engine.model.synthetic.SyntheticShape;
import dev.inferd.engine.model.synthetic.WeightFormat;
import dev.inferd.engine.tensor.copies.CopyCacheFile;
import dev.inferd.engine.tensor.copies.CopyStore;
import dev.inferd.engine.tensor.parallel.WorkerPool;
import dev.inferd.speech.whisper.SyntheticWhisper;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * {@code inferd bench}: prompt processing and generation speed like {@code llama-bench}, plus the
 * memory bandwidth measured on the spot, the share of the decode limit reached, and the CPU it ran on.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Measure prompt and generation speed, as llama-bench does.",
        description = {
                "Measure prompt processing (pp<P>) and generation (tg<N>) speed in tokens/s, as llama-bench does,",
                "and the fraction of the memory-bandwidth limit that generation reaches.",
                "Synthetic models have the exact shapes of real ones with random weights: --model synthetic:<shape>:<type>[:<seed>]",
                "(shapes: smollm2-135m, smollm2-360m, smollm2-1.7b, qwen2.5-0.5b, qwen2.5-1.5b, qwen2.5-3b, qwen2.5-7b,",
                "qwen2.5-14b, qwen2.5-32b, qwen3-0.6b, qwen3-1.7b, qwen3-4b, qwen3-8b, qwen3-14b, qwen3-32b, llama-3.2-1b,",
                "llama-3.2-3b, llama-3.1-8b, llama-3.3-70b, gemma-3-1b, gemma-3-4b, gemma-3-12b, gemma-2-2b, gemma-2-9b,",
                "phi-3.5-mini, phi-4-mini, mistral-7b, mistral-nemo-12b, tinyllama-1.1b, stories-15m;",
                "types: F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_K_M, Q5_K_M, Q6_K; another seed: other weights, the same vocabulary).",
                "--catalog-decode measures every catalog model's synthetic file beside llama-bench (docs/performance.md).",
                "--write-synthetic writes such a file, so llama-bench can run the very same model.",
                "The report names the CPU and its VNNI and AMX support, which llama.cpp uses and inferd cannot."})
public final class BenchCommand implements Callable<Integer> {
    static final String SYNTHETIC = "synthetic:";
    static final String WHISPER = "whisper-";

    @Option(names = {"-m", "--model"}, paramLabel = "<file|slug|synthetic:shape:type>",
            description = "a GGUF file, a catalog slug (downloaded if needed), or synthetic:<shape>:<type> "
                    + "(written once to $INFERD_HOME/synthetic/)")
    String model;

    @Option(names = {"-p", "--n-prompt"}, split = ",", defaultValue = "512", paramLabel = "P",
            description = "prompt lengths to test, comma-separated; 0 for none (default: ${DEFAULT-VALUE})")
    List<Integer> prompts;

    @Option(names = {"-n", "--n-gen"}, split = ",", defaultValue = "128", paramLabel = "N",
            description = "generation lengths to test, comma-separated; 0 for none (default: ${DEFAULT-VALUE})")
    List<Integer> generations;

    @Option(names = {"-d", "--n-depth"}, split = ",", defaultValue = "0", paramLabel = "D",
            description = "tokens already in the cache when each test starts, comma-separated, as llama-bench's -d "
                    + "(prefilled unmeasured; default: ${DEFAULT-VALUE})")
    List<Integer> depths;

    @Option(names = {"-t", "--threads"}, split = ",", paramLabel = "T",
            description = "thread counts to test, comma-separated (default: all cores)")
    List<Integer> threads;

    @Option(names = {"-r", "--repetitions"}, defaultValue = "3", paramLabel = "R",
            description = "measured repetitions of each test, after one warm-up run (default: ${DEFAULT-VALUE})")
    int repetitions;

    @Option(names = {"-b", "--batch-size"}, defaultValue = "512", paramLabel = "B",
            description = "prompt tokens per forward pass (default: ${DEFAULT-VALUE})")
    int batchSize;

    @Option(names = "--draft", paramLabel = "<file|slug|synthetic:shape:type>",
            description = "measure speculative decoding with this draft model instead: plain and speculative generation in "
                    + "alternating rounds through the scheduler, for each of --streams, -n tokens per stream; then the cost of "
                    + "verifying drafts (a pass of 1 to 9 rows of one sequence at the first -d depth)")
    String draft;

    @Option(names = "--draft-p-min", defaultValue = "0.5", paramLabel = "P",
            description = "with --draft: the draft's draft ends at a token the draft model gives less than this probability, "
                    + "as serve's drafts do (0: never; default: ${DEFAULT-VALUE})")
    float draftMinProbability;

    @Option(names = "--draft-always",
            description = "with --draft: draft at every step the acceptance allows, even where the measured costs say drafts "
                    + "cannot pay (serve's drafts stop there): what verification gives and costs with a draft as large as the target")
    boolean draftAlways;

    @Option(names = "--prompt-lookup", description = "measure prompt lookup speculation (no draft model) the same way as --draft")
    boolean promptLookup;

    @Option(names = "--streams", split = ",", defaultValue = "1,8", paramLabel = "N",
            description = "concurrent streams for --draft and --prompt-lookup (default: ${DEFAULT-VALUE})")
    List<Integer> streams;

    @Option(names = "--json", description = "print one JSON object per test, one per line, instead of the table")
    boolean json;

    @Option(names = "--write-synthetic", arity = "2", paramLabel = "<shape:type> <out.gguf>",
            description = "write the synthetic model <shape>:<type> to out.gguf and exit; whisper-tiny:F16 (whisper-base, "
                    + "whisper-large-v3...; F16, F32 or a quantized type) writes a Whisper in whisper.cpp's ggml-*.bin format")
    List<String> writeSynthetic;

    @Option(names = "--grammar", description = "measure constrained decoding instead: compile time of a forced call's "
            + "grammar (a nested tool schema), token-mask time p50/p99 on a 128k-token vocabulary, and generation tokens/s "
            + "of --model with and without the constraint (-n tokens per run, -r rounds, alternated); without --model, "
            + "compile and mask times only")
    boolean grammar;

    @Option(names = "--second-turn", paramLabel = "N",
            description = "measure what the prefix cache saves on an agent's second turn instead: for each -p length P, "
                    + "the time to the first token of a request repeating a P-token first turn plus N new tokens, with "
                    + "the first turn cached and without")
    Integer secondTurn;

    @Option(names = "--catalog-decode", description = "measure the catalog's decode table instead: for each distinct "
            + "(shape, type) pair of the catalog's models, write its synthetic file, run this bench and --llama-bench on it "
            + "(-p 0, -n tokens, default 32; -r, default 1) in alternating order for --rounds rounds, delete it, print a "
            + "markdown row")
    boolean catalogDecode;

    @Option(names = "--llama-bench", paramLabel = "PATH", description = "the llama-bench binary that --catalog-decode "
            + "compares with (without it: inferd's columns only)")
    Path llamaBench;

    @Option(names = "--max-size", paramLabel = "SIZE", converter = ByteSize.Converter.class,
            description = "--catalog-decode skips files larger than this, e.g. 20g (default: half the RAM, since the file "
                    + "and inferd's decode copies both stay in memory)")
    Long maxSize;

    @Option(names = "--only", paramLabel = "TEXT[,TEXT...]", description = "--catalog-decode measures only the pairs whose "
            + "shape:type or catalog models contain one of these, e.g. qwen2.5,gemma-3-1b")
    String only;

    @Option(names = "--rounds", defaultValue = "2", paramLabel = "N",
            description = "--catalog-decode's rounds per file (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--out", paramLabel = "FILE", description = "--catalog-decode appends each measured row to FILE "
            + "and skips the pairs FILE already has: run it again with the same FILE to go on where it stopped")
    Path tableOut;

    @Option(names = "--work-dir", paramLabel = "DIR", description = "--catalog-decode writes its files into a new "
            + "directory under DIR, removed at the end (default: the system's temporary directory)")
    Path workDir;

    @Option(names = "--dry-run", description = "--catalog-decode lists the pairs it would measure or skip, and runs nothing")
    boolean dryRun;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec commandSpec;

    @Option(names = "--no-copy-cache", description = "build the copies of Q8_0, Q4_0, Q4_K, Q5_K and Q6_K weights for generated "
            + "tokens at every load, instead of caching them in $INFERD_HOME/copies")
    boolean noCopyCache;

    @Option(names = "--bandwidth-buffer-mb", defaultValue = "1024", paramLabel = "MB", hidden = true,
            description = "size of the buffer the bandwidth is measured on (default: ${DEFAULT-VALUE})")
    long bandwidthBufferMb;

    private final Function<String, String> env;
    private final PrintStream out;
    private final PrintStream err;

    public BenchCommand() {
        this(System::getenv, System.out, System.err);
    }

    BenchCommand(Function<String, String> env, PrintStream out, PrintStream err) {
        this.env = env;
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() {
        try {
            if (writeSynthetic != null) return writeSynthetic(writeSynthetic.get(0), Path.of(writeSynthetic.get(1)));
            if (catalogDecode) return catalogDecode();
            if (grammar) return grammarBench();
            if (secondTurn != null) return secondTurnBench();
            if (draft != null || promptLookup) return speculativeBench();
            String problem = checkOptions();
            if (problem != null) {
                err.println("inferd bench: " + problem);
                return 2;
            }
            return bench(resolve(model));
        } catch (ModelException | IllegalArgumentException | UnsupportedOperationException | GGUFFormatException e) {
            err.println("inferd bench: " + e.getMessage());
            return 1;
        } catch (IOException | UncheckedIOException e) {
            err.println("inferd bench: " + e.getMessage());
            return 1;
        }
    }

    private int catalogDecode() throws IOException {
        var parsed = commandSpec.commandLine().getParseResult();
        int tokens = parsed.hasMatchedOption("-n") ? generations.stream().filter(n -> n > 0).findFirst().orElse(0) : 32;
        int reps = parsed.hasMatchedOption("-r") ? repetitions : 1;
        int threadCount = threads != null ? threads.getFirst() : Runtime.getRuntime().availableProcessors();
        if (tokens < 1 || reps < 1 || rounds < 1 || threadCount < 1) {
            err.println("inferd bench: --catalog-decode needs -n, -r, --rounds and -t of at least 1");
            return 2;
        }
        if (llamaBench != null && !Files.isExecutable(llamaBench)) {
            err.println("inferd bench: --llama-bench " + llamaBench + " is not an executable file");
            return 2;
        }
        long limit = maxSize != null ? maxSize : PoolOptionsMixin.physicalMemory() / 2;
        Path parent = workDir != null ? workDir : Path.of(System.getProperty("java.io.tmpdir"));
        Files.createDirectories(parent);
        Path dir = Files.createTempDirectory(parent, "inferd-decode-table-");
        var settings = new CatalogDecodeTable.Settings(llamaBench, limit, only, rounds, tokens, reps, threadCount,
                tableOut, dir, dryRun);
        var pairs = CatalogDecodePairs.of(dev.inferd.app.models.Catalog.builtIn().entries());
        try {
            return new CatalogDecodeTable(settings, out, err).run(pairs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    private int grammarBench() throws IOException {
        int tokens = generations.stream().filter(n -> n > 0).findFirst().orElse(0);
        if (model != null && tokens == 0) {
            err.println("inferd bench: --grammar needs -n above 0 to measure generation");
            return 2;
        }
        if (repetitions < 1) {
            err.println("inferd bench: -r must be at least 1");
            return 2;
        }
        GrammarBench.run(model == null ? null : resolve(model), tokens, repetitions, out);
        return 0;
    }

    private int secondTurnBench() throws IOException {
        List<Integer> firstTurns = prompts.stream().filter(p -> p > 0).toList();
        if (model == null || firstTurns.isEmpty() || secondTurn < 1 || repetitions < 1) {
            err.println("inferd bench: --second-turn needs --model, -p above 0, a new turn of at least 1 token and -r 1 or more");
            return 2;
        }
        int t = threads != null ? threads.getFirst() : 0;
        out.println("cpu: " + CpuInfo.detect().describe());
        SecondTurnBench.run(resolve(model), firstTurns, secondTurn, repetitions, t,
                noCopyCache ? null : ModelsConfig.fromEnvironment(env).copiesDir(), out);
        return 0;
    }

    private int speculativeBench() throws IOException {
        if (model == null || model.isBlank()) {
            err.println("inferd bench: --model is required");
            return 2;
        }
        if (draft != null && promptLookup) {
            err.println("inferd bench: --draft and --prompt-lookup measure different things: give one");
            return 2;
        }
        if (!(draftMinProbability >= 0 && draftMinProbability < 1)) {
            err.println("inferd bench: --draft-p-min is a probability below 1");
            return 2;
        }
        if (repetitions < 1 || streams.stream().anyMatch(n -> n < 1)) {
            err.println("inferd bench: -r and --streams must be at least 1");
            return 2;
        }
        int tokens = generations.stream().filter(n -> n > 0).findFirst().orElse(128);
        int depth = depths.stream().filter(d -> d > 0).findFirst().orElse(256);
        Path target = resolve(model);
        Path draftFile = draft == null ? null : resolve(draft);
        int threadCount = threads != null ? threads.getFirst() : Runtime.getRuntime().availableProcessors();
        Path copiesDir = noCopyCache ? null : ModelsConfig.fromEnvironment(env).copiesDir();
        int parallel = streams.stream().mapToInt(Integer::intValue).max().orElse(1);
        var options = new dev.inferd.engine.generate.LocalTextGenerator.Options(null, null, 2048).withParallel(parallel)
                .withThreads(threadCount).withCopyCache(copiesDir).withDraft(draftFile).withPromptLookup(draftFile == null)
                .withDraftMinProbability(draftMinProbability).withDraftAlways(draftAlways);
        CpuInfo cpu = CpuInfo.detect();
        try (var generator = dev.inferd.engine.generate.LocalTextGenerator.open(target, options)) {
            String what = draftFile != null ? "target " + target.getFileName() + ", draft " + draftFile.getFileName()
                    : "prompt lookup on " + target.getFileName();
            new dev.inferd.bench.SpeculativeBench(generator, out).run(what, streams, tokens, repetitions);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
        try (GGUFFile gguf = GGUFFile.open(target)) {
            CopyCacheFile copies = copiesDir == null ? null : CopyCacheFile.open(copiesDir, gguf, WeightMatrices.COPIES);
            Model m = Model.load(gguf, 256, copies != null ? copies : CopyStore.inMemory());
            dev.inferd.bench.SpeculativeBench.verificationCost(m, depth, List.of(1, 2, 3, 4, 5, 6, 8, 9), repetitions * 3, out);
        }
        out.printf(Locale.ROOT, "cpu: %s; %d threads%n", cpu.describe(), threadCount);
        return 0;
    }

    private String checkOptions() {
        if (model == null || model.isBlank()) return "--model is required (a GGUF file, a catalog slug or synthetic:<shape>:<type>)";
        if (repetitions < 1) return "-r must be at least 1";
        if (batchSize < 1) return "-b must be at least 1";
        if (prompts.stream().anyMatch(p -> p < 0) || generations.stream().anyMatch(n -> n < 0)) return "-p and -n must not be negative";
        if (depths.stream().anyMatch(d -> d < 0)) return "-d must not be negative";
        if (threads != null && threads.stream().anyMatch(t -> t < 1)) return "-t must be at least 1";
        if (tests().isEmpty()) return "nothing to measure: -p and -n are all 0";
        if (bandwidthBufferMb < 1) return "--bandwidth-buffer-mb must be at least 1";
        return null;
    }

    // ---- models ----

    private int writeSynthetic(String spec, Path file) throws IOException {
        if (spec.startsWith(WHISPER)) return writeSyntheticWhisper(spec, file);
        var s = SyntheticModel.Spec.parse(spec);
        writeAtomically(s, file);
        err.printf(Locale.ROOT, "wrote %s: synthetic %s %s, %s%n", file, s.shape().name(), s.format().name(),
                gib(Files.size(file)));
        return 0;
    }

    /** A Whisper shape in whisper.cpp's model format, e.g. {@code whisper-tiny:F16}. */
    private int writeSyntheticWhisper(String spec, Path file) throws IOException {
        var s = SyntheticWhisper.Spec.parse(spec);
        Path tmp = file.resolveSibling(file.getFileName() + "." + ProcessHandle.current().pid() + ".part");
        try {
            s.write(tmp);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
        err.printf(Locale.ROOT, "wrote %s: synthetic %s %s, %s%n", file, s.shape().name(), s.type(), gib(Files.size(file)));
        return 0;
    }

    private Path resolve(String arg) throws IOException {
        if (!arg.startsWith(SYNTHETIC)) return ModelResolver.fromEnvironment(env, err).resolve(arg, false);
        var spec = SyntheticModel.Spec.parse(arg.substring(SYNTHETIC.length()));
        Path file = ModelsConfig.fromEnvironment(env).home().resolve("synthetic").resolve(spec.fileName());
        if (!Files.isRegularFile(file)) {
            err.printf(Locale.ROOT, "inferd bench: writing %s (%s)...%n", file, gib(spec.tensorBytes()));
            Files.createDirectories(file.getParent());
            writeAtomically(spec, file);
        }
        return file;
    }

    /** Writes next to {@code file}, then renames: an interrupted write never leaves a truncated model behind. */
    private static void writeAtomically(SyntheticModel.Spec spec, Path file) throws IOException {
        // Not Files.createTempFile: its owner-only permissions would keep others' llama-bench from the file.
        Path tmp = file.resolveSibling(file.getFileName() + "." + ProcessHandle.current().pid() + ".part");
        try {
            spec.write(tmp);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    // ---- the benchmark ----

    private List<BenchTest> tests() {
        var tests = new ArrayList<BenchTest>();
        for (int d : depths) {
            prompts.stream().filter(p -> p > 0).forEach(p -> tests.add(BenchTest.prompt(p).atDepth(d)));
            generations.stream().filter(n -> n > 0).forEach(n -> tests.add(BenchTest.generation(n).atDepth(d)));
        }
        return tests;
    }

    /** The measurements of one thread count. */
    private record Run(int threads, double bandwidth, List<TestResult> results) {
    }

    private int bench(Path file) throws IOException {
        List<Integer> threadCounts = threads != null ? threads : List.of(Runtime.getRuntime().availableProcessors());
        List<BenchTest> tests = tests();
        // the longest run of tokens through one forward pass's batches: a prompt, or a depth's prefill
        int longestPrefill = Math.max(prompts.stream().mapToInt(Integer::intValue).max().orElse(0),
                depths.stream().mapToInt(Integer::intValue).max().orElse(0));
        CpuInfo cpu = CpuInfo.detect();
        try (GGUFFile gguf = GGUFFile.open(file)) {
            var footprint = ModelFootprint.of(gguf);
            var table = new Table(footprint, tests);
            if (!json) table.header();
            var runs = new ArrayList<Run>();
            for (int t : threadCounts) {
                WorkerPool.configure(t); // before loading: the model keeps the shared pool
                double bandwidth = MemoryBandwidth.measure(WorkerPool.shared(), bandwidthBufferMb << 20);
                var limit = new DecodeLimit(bandwidth, footprint.bytesPerToken());
                // saved (or moved into memory) before measuring, so that nothing runs beside the tests
                CopyCacheFile copies = noCopyCache ? null
                        : CopyCacheFile.open(ModelsConfig.fromEnvironment(env).copiesDir(), gguf, WeightMatrices.COPIES);
                Model m = Model.load(gguf, Math.max(1, Math.min(batchSize, longestPrefill)),
                        copies != null ? copies : CopyStore.inMemory());
                AfterLoad.run(copies, gguf, file.getFileName().toString(), new ModelEvents(err));
                // the server's warm-up first: generated tokens' kernels compile before any prompt product runs,
                // since compiled after prompt products they can run boxed on AVX-512, at half speed (see WarmUp)
                WarmUp.run(m, () -> false);
                var bench = new LlamaBench(m);
                var results = new ArrayList<TestResult>();
                for (BenchTest test : tests) {
                    TestResult r = bench.run(test, repetitions);
                    results.add(r);
                    if (json) out.println(jsonLine(footprint, t, r, limit, cpu));
                    else table.row(t, r);
                }
                runs.add(new Run(t, bandwidth, results));
            }
            if (!json) summary(footprint, runs, cpu);
            return 0;
        } catch (UnsupportedModelException e) {
            err.println("inferd bench: " + e.getMessage());
            return 1;
        }
    }

    private void summary(ModelFootprint footprint, List<Run> runs, CpuInfo cpu) {
        out.println();
        // llama.cpp's speed here depends on VNNI and AMX, which inferd cannot use (see CpuInfo)
        out.println("cpu: " + cpu.describe());
        for (Run run : runs) {
            var limit = new DecodeLimit(run.bandwidth, footprint.bytesPerToken());
            out.printf(Locale.ROOT, "bandwidth: %.1f GB/s read with %d thread%s (streaming sum over %s)%n",
                    run.bandwidth / 1e9, run.threads, run.threads == 1 ? "" : "s", gib(bandwidthBufferMb << 20));
            out.printf(Locale.ROOT, "decode limit: %.2f t/s (%.2f GB of weights read per token)%n",
                    limit.tokensPerSecond(), footprint.bytesPerToken() / 1e9);
            for (TestResult r : run.results) {
                // deeper in the context each token also reads the cache's keys and values: not this limit's case
                if (r.test().kind() == BenchTest.Kind.GENERATION && r.test().depth() == 0) {
                    out.printf(Locale.ROOT, "%s reached %.1f%% of the decode limit%n", r.test().name(),
                            100 * limit.fraction(r.mean()));
                }
            }
        }
    }

    private static String jsonLine(ModelFootprint f, int threads, TestResult r, DecodeLimit limit, CpuInfo cpu) {
        boolean generation = r.test().kind() == BenchTest.Kind.GENERATION;
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("model", f.name());
        o.put("type", f.type());
        o.put("size_bytes", f.tensorBytes());
        o.put("params", f.parameters());
        o.put("threads", threads);
        o.put("test", r.test().name());
        o.put("n_prompt", generation ? 0 : r.test().tokens());
        o.put("n_gen", generation ? r.test().tokens() : 0);
        o.put("n_depth", r.test().depth());
        o.put("tokens_per_s", r.mean());
        o.put("stddev", r.stddev());
        o.put("samples_ts", r.tokensPerSecond());
        o.put("bandwidth_gbs", limit.bandwidth() / 1e9);
        o.put("bytes_per_token", f.bytesPerToken());
        o.put("decode_limit_ts", limit.tokensPerSecond());
        // Only generation is bounded by reading the weights (prefill reuses them across the batch), and
        // at a depth it reads the cache's keys and values as well.
        o.put("limit_fraction", generation && r.test().depth() == 0 ? limit.fraction(r.mean()) : null);
        o.put("cpu_info", cpu.model()); // llama-bench's name for it
        o.put("cpu_features", cpu.features());
        o.put("vector_bits", cpu.vectorBits());
        try {
            return new ObjectMapper().writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a benchmark result did not serialize", e);
        }
    }

    static String gib(long bytes) {
        return String.format(Locale.ROOT, "%.2f GiB", bytes / (double) (1L << 30));
    }

    /** llama-bench's markdown table, a row printed as each test ends. */
    private final class Table {
        private static final String[] HEADER = {"model", "size", "params", "type", "threads", "test", "t/s"};
        private static final boolean[] RIGHT = {false, true, true, false, true, true, true};
        private final int[] width = {30, 10, 10, 6, 7, 10, 20};
        private final ModelFootprint footprint;

        Table(ModelFootprint footprint, List<BenchTest> tests) {
            this.footprint = footprint;
            for (BenchTest t : tests) width[5] = Math.max(width[5], t.name().length()); // "tg128 @ d4096"
        }

        void header() {
            print(HEADER);
            String[] rule = new String[width.length];
            for (int c = 0; c < width.length; c++) rule[c] = RIGHT[c] ? "-".repeat(width[c] - 1) + ":" : "-".repeat(width[c]);
            print(rule);
        }

        void row(int threads, TestResult r) {
            long p = footprint.parameters();
            String params = p >= 1e9 ? String.format(Locale.ROOT, "%.2f B", p / 1e9) : String.format(Locale.ROOT, "%.2f M", p / 1e6);
            print(new String[] {footprint.name(), gib(footprint.tensorBytes()), params, footprint.type(),
                    String.valueOf(threads), r.test().name(), String.format(Locale.ROOT, "%.2f ± %.2f", r.mean(), r.stddev())});
        }

        private void print(String[] cells) {
            var line = new StringBuilder("|");
            for (int c = 0; c < cells.length; c++) {
                String pad = " ".repeat(Math.max(0, width[c] - cells[c].length()));
                line.append(' ').append(RIGHT[c] ? pad + cells[c] : cells[c] + pad).append(" |");
            }
            out.println(line);
        }
    }
}
