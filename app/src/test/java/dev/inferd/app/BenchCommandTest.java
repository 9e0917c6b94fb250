package dev.inferd.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inferd.bench.CpuInfo;
import dev.inferd.engine.model.synthetic.SyntheticModel;
import dev.inferd.engine.model.synthetic.SyntheticShape;
import dev.inferd.engine.model.synthetic.WeightFormat;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The plumbing of {@code inferd bench} on a tiny synthetic model; no timing is asserted. */
class BenchCommandTest {
    @TempDir
    static Path dir;
    static Path model;

    static final String[] FAST = {"-p", "16", "-n", "8", "-r", "1", "-t", "1", "--bandwidth-buffer-mb", "16"};

    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeAll
    static void writeModel() throws Exception {
        var tiny = new SyntheticShape("tiny", "llama", 64, 2, 4, 2, 128, 1024, 128, 10_000f, 1e-5f, true, false, null);
        model = SyntheticModel.write(tiny, WeightFormat.Q8_0, 1, dir.resolve("tiny.gguf"));
    }

    private int run(String... args) {
        var command = new BenchCommand(Map.of("INFERD_HOME", dir.resolve("home").toString())::get,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new CommandLine(command).execute(args);
    }

    private static String[] with(String[] head, String... tail) {
        var all = new java.util.ArrayList<>(List.of(head));
        all.addAll(List.of(tail));
        return all.toArray(String[]::new);
    }

    private String out() { return out.toString(StandardCharsets.UTF_8); }

    private String err() { return err.toString(StandardCharsets.UTF_8); }

    @Test
    void printsLlamaBenchsTableThenBandwidthAndDecodeLimit() {
        int exit = run(with(FAST, "--model", model.toString()));

        assertThat(exit).as(err()).isZero();
        List<String> lines = out().lines().toList();
        assertThat(lines.get(0)).matches("\\| model +\\| +size \\| +params \\| type +\\| threads \\| +test \\| +t/s \\|");
        assertThat(lines.get(1)).matches("\\| -+ \\| -+: \\| -+: \\| -+ \\| -+: \\| -+: \\| -+: \\|");
        assertThat(lines.get(2)).matches("\\| synthetic tiny +\\| +0\\.00 GiB \\| +0\\.\\d\\d M \\| Q8_0 +\\| +1 \\| +pp16 \\| +\\d+\\.\\d\\d ± 0\\.00 \\|");
        assertThat(lines.get(3)).matches("\\| synthetic tiny .*\\| +tg8 \\| +\\d+\\.\\d\\d ± 0\\.00 \\|");
        assertThat(lines.get(4)).isEmpty();
        assertThat(lines.get(5)).isEqualTo("cpu: " + CpuInfo.detect().describe());
        assertThat(lines.get(6)).matches("bandwidth: \\d+\\.\\d GB/s read with 1 thread \\(streaming sum over 0\\.02 GiB\\)");
        assertThat(lines.get(7)).matches("decode limit: \\d+\\.\\d\\d t/s \\(0\\.00 GB of weights read per token\\)");
        assertThat(lines.get(8)).matches("tg8 reached \\d+\\.\\d% of the decode limit");
        assertThat(lines).hasSize(9);
    }

    @Test
    void theFirstLoadCachesTheWeightsCopiesAndLaterLoadsMapThemAndMoveThemIntoMemory() throws Exception {
        var shape = new SyntheticShape("cached", "llama", 64, 2, 4, 2, 128, 1024, 128, 10_000f, 1e-5f, true, false, null);
        Path cached = SyntheticModel.write(shape, WeightFormat.Q4_0, 2, dir.resolve("cached.gguf"));
        Path copies = dir.resolve("home").resolve("copies");

        assertThat(run(with(FAST, "--model", cached.toString(), "--no-copy-cache"))).as(err()).isZero();
        assertThat(err()).doesNotContain("copies for generated tokens saved");
        assertThat(cacheFiles(copies, "cached-")).isEmpty();

        assertThat(run(with(FAST, "--model", cached.toString()))).as(err()).isZero();
        assertThat(err()).contains("cached.gguf: copies for generated tokens saved to " + copies);
        assertThat(cacheFiles(copies, "cached-")).hasSize(1);

        err.reset();
        assertThat(run(with(FAST, "--model", cached.toString()))).as(err()).isZero();
        assertThat(err()).as("the second load maps the saved copies").doesNotContain("copies for generated tokens saved");
        if (System.getProperty("os.name").startsWith("Linux")) {
            assertThat(err()).contains("cached.gguf: copies for generated tokens moved into memory in ");
        }
        assertThat(cacheFiles(copies, "cached-")).hasSize(1);
    }

    private static List<Path> cacheFiles(Path copies, String prefix) throws Exception {
        if (!Files.isDirectory(copies)) return List.of();
        try (var files = Files.list(copies)) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix)).toList();
        }
    }

    @Test
    void jsonPrintsOneObjectPerTestPerThreadCount() throws Exception {
        int exit = run("--model", model.toString(), "-p", "8,16", "-n", "4", "-r", "2", "-t", "1,2",
                "--bandwidth-buffer-mb", "16", "--json");

        assertThat(exit).as(err()).isZero();
        List<String> lines = out().lines().toList();
        assertThat(lines).hasSize(6);
        var mapper = new ObjectMapper();
        List<JsonNode> objects = new java.util.ArrayList<>();
        for (String line : lines) objects.add(mapper.readTree(line));
        assertThat(objects).extracting(o -> o.get("test").asText()).containsExactly("pp8", "pp16", "tg4", "pp8", "pp16", "tg4");
        assertThat(objects).extracting(o -> o.get("threads").asInt()).containsExactly(1, 1, 1, 2, 2, 2);
        for (JsonNode o : objects) {
            assertThat(o.get("model").asText()).isEqualTo("synthetic tiny");
            assertThat(o.get("type").asText()).isEqualTo("Q8_0");
            assertThat(o.get("tokens_per_s").isNumber()).isTrue();
            assertThat(o.get("tokens_per_s").asDouble()).isPositive();
            assertThat(o.get("stddev").isNumber()).isTrue();
            assertThat(o.get("samples_ts")).hasSize(2);
            assertThat(o.get("bandwidth_gbs").asDouble()).isPositive();
            assertThat(o.get("size_bytes").isIntegralNumber()).isTrue();
            assertThat(o.get("params").isIntegralNumber()).isTrue();
            assertThat(o.get("cpu_info").asText()).isEqualTo(CpuInfo.detect().model());
            assertThat(o.get("cpu_features").isArray()).isTrue();
            assertThat(o.get("vector_bits").asInt()).isEqualTo(CpuInfo.detect().vectorBits());
        }
        assertThat(objects.get(2).get("limit_fraction").asDouble()).isPositive();
        assertThat(objects.get(2).get("n_gen").asInt()).isEqualTo(4);
        assertThat(objects.get(0).get("limit_fraction").isNull()).isTrue();
        assertThat(objects.get(0).get("n_prompt").asInt()).isEqualTo(8);
    }

    @Test
    void depthsRunEveryTestAfterThatManyTokensAndSayWhere() throws Exception {
        int exit = run("--model", model.toString(), "-p", "8", "-n", "4", "-d", "0,20", "-r", "1", "-t", "1",
                "--bandwidth-buffer-mb", "16", "--json");

        assertThat(exit).as(err()).isZero();
        var mapper = new ObjectMapper();
        List<JsonNode> objects = new java.util.ArrayList<>();
        for (String line : out().lines().toList()) objects.add(mapper.readTree(line));
        assertThat(objects).extracting(o -> o.get("test").asText()).containsExactly("pp8", "tg4", "pp8 @ d20", "tg4 @ d20");
        assertThat(objects).extracting(o -> o.get("n_depth").asInt()).containsExactly(0, 0, 20, 20);
        assertThat(objects.get(1).get("limit_fraction").asDouble()).isPositive();
        assertThat(objects.get(3).get("limit_fraction").isNull()).isTrue(); // the cache's reads are not in that limit
        assertThat(objects.get(3).get("tokens_per_s").asDouble()).isPositive();

        assertThat(run("--model", model.toString(), "-d", "-1")).isEqualTo(2);
        assertThat(err()).contains("-d must not be negative");
    }

    @Test
    void secondTurnTimesARepeatedFirstTurnFromThePrefixCacheAndWithout() {
        int exit = run("--second-turn", "8", "--model", model.toString(), "-p", "48,96", "-r", "1", "-t", "1");
        assertThat(exit).as(err()).isZero();
        List<String> lines = out().lines().toList();
        assertThat(lines.get(0)).startsWith("cpu: ");
        assertThat(lines.get(1)).contains("first turn").contains("2nd turn TTFT").contains("cached").contains("without cache");
        // whole blocks of 16 positions come from the cache: all 48 and 96 first-turn tokens
        assertThat(lines.get(3)).matches("\\| tiny +\\| +48 \\| +8 \\| .* s \\| .* s \\| +48 \\| .* s \\| .*x \\|");
        assertThat(lines.get(4)).matches("\\| tiny +\\| +96 \\| +8 \\| .* s \\| .* s \\| +96 \\| .* s \\| .*x \\|");
        assertThat(run("--second-turn", "0", "--model", model.toString())).isEqualTo(2);
    }

    @Test
    @org.junit.jupiter.api.Tag("slow")
    void grammarMeasuresCompileMasksAndDecodingWithAndWithoutTheConstraint() {
        int exit = run("--grammar", "--model", model.toString(), "-n", "4", "-r", "1");
        assertThat(exit).as(err()).isZero();
        assertThat(out()).contains("compile (forced call of a nested tool schema").contains("mask, first sequence")
                .contains("p50").contains("unconstrained").contains("constrained (grammar in use before)");
    }

    @Test
    void helpNamesEverySyntheticShape() {
        var command = new BenchCommand(Map.<String, String>of()::get, new PrintStream(out), new PrintStream(err));
        String help = new CommandLine(command).getUsageMessage().replaceAll("\\s+", " ");
        for (SyntheticShape shape : SyntheticShape.KNOWN) assertThat(help).contains(shape.name());
    }

    @Test
    void badArgumentsAreExplained() {
        assertThat(run(with(FAST, "--model", "synthetic:gpt5:Q8_0"))).isEqualTo(1);
        assertThat(err()).contains("unknown synthetic shape 'gpt5'").contains("llama-3.2-1b");

        err.reset();
        assertThat(run(with(FAST, "--model", "synthetic:smollm2-135m"))).isEqualTo(1);
        assertThat(err()).contains("<shape>:<type>");

        err.reset();
        assertThat(run(with(FAST, "--model", dir.resolve("missing.gguf").toString()))).isEqualTo(1);
        assertThat(err()).contains("does not exist");

        err.reset();
        assertThat(run("--model", model.toString(), "-p", "0", "-n", "0")).isEqualTo(2);
        assertThat(err()).contains("nothing to measure");

        err.reset();
        assertThat(run("--write-synthetic", "smollm2-135m:Q5_1", dir.resolve("x.gguf").toString())).isEqualTo(1);
        assertThat(err()).contains("unknown weight type 'Q5_1'");
        assertThat(dir.resolve("x.gguf")).doesNotExist();

        err.reset();
        assertThat(run("--write-synthetic", "whisper-tiny:Q4_K", dir.resolve("w.bin").toString())).isEqualTo(1);
        assertThat(err()).contains("width 384").contains("Q4_K");
        assertThat(dir.resolve("w.bin")).doesNotExist();

        err.reset();
        assertThat(run(with(FAST, "--model", model.toString(), "-n", "500"))).isEqualTo(1);
        assertThat(err()).contains("context is 128");
    }

    @Test
    void syntheticModelsAreWrittenOnceIntoTheCache() throws Exception {
        // The cache is keyed by the spec's file name; a file already there is used as is.
        Path cached = dir.resolve("home/synthetic/smollm2-135m-Q8_0-seed1.gguf");
        Files.createDirectories(cached.getParent());
        Files.copy(model, cached);

        int exit = run(with(FAST, "--model", "synthetic:smollm2-135m:Q8_0", "--json"));

        assertThat(exit).as(err()).isZero();
        assertThat(err()).doesNotContain("writing");
        assertThat(out().lines().toList()).hasSize(2).allMatch(l -> l.contains("\"model\":\"synthetic tiny\""));
    }
}
