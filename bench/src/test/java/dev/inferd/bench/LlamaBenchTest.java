package dev.inferd.bench;

import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.model.Model;
import dev.inferd.engine.model.synthetic.SyntheticModel;
import dev.inferd.engine.model.synthetic.SyntheticShape;
import dev.inferd.engine.model.synthetic.WeightFormat;
import dev.inferd.engine.tensor.parallel.WorkerPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class LlamaBenchTest {
    @TempDir
    Path dir;

    static SyntheticShape tiny(boolean tied) {
        return new SyntheticShape("tiny", "llama", 64, 2, 4, 2, 128, 1024, 128, 10_000f, 1e-5f, tied, false, null);
    }

    @Test
    void runsPromptAndGenerationTestsWithRepetitions() throws Exception {
        Path file = SyntheticModel.write(tiny(true), WeightFormat.Q8_0, 1, dir.resolve("t.gguf"));
        try (GGUFFile gguf = GGUFFile.open(file)) {
            var bench = new LlamaBench(Model.load(gguf, 8));
            TestResult pp = bench.run(BenchTest.prompt(20), 2); // three batches of up to 8
            TestResult tg = bench.run(BenchTest.generation(5), 3);
            assertThat(pp.test().name()).isEqualTo("pp20");
            assertThat(pp.tokensPerSecond()).hasSize(2).doesNotContain(0.0);
            assertThat(tg.test().name()).isEqualTo("tg5");
            assertThat(tg.tokensPerSecond()).hasSize(3).doesNotContain(0.0);
            assertThatThrownBy(() -> bench.run(BenchTest.generation(500), 1)).hasMessageContaining("context is 128");

            TestResult deep = bench.run(BenchTest.generation(5).atDepth(100), 1);
            assertThat(deep.test().name()).isEqualTo("tg5 @ d100");
            assertThat(deep.tokensPerSecond()).hasSize(1).doesNotContain(0.0);
            assertThatThrownBy(() -> bench.run(BenchTest.prompt(20).atDepth(120), 1)).hasMessageContaining("needs 140 positions");
        }
    }

    @Test
    void warmUpOfALongTestIsTheSameTestCutShort() {
        assertThat(LlamaBench.warmUp(BenchTest.prompt(512))).isEqualTo(BenchTest.prompt(512));
        assertThat(LlamaBench.warmUp(BenchTest.prompt(16384))).isEqualTo(BenchTest.prompt(LlamaBench.WARM_UP_POSITIONS));
        assertThat(LlamaBench.warmUp(BenchTest.generation(128).atDepth(16384)))
                .isEqualTo(BenchTest.generation(128).atDepth(LlamaBench.WARM_UP_POSITIONS - 128));
    }

    @Test
    void meanAndSampleStandardDeviation() {
        var r = new TestResult(BenchTest.generation(128), new double[] {10, 12, 14});
        assertThat(r.mean()).isEqualTo(12.0);
        assertThat(r.stddev()).isCloseTo(2.0, within(1e-12));
        assertThat(new TestResult(BenchTest.prompt(1), new double[] {5}).stddev()).isZero();
    }

    @Test
    void bytesPerTokenCountsTheEmbeddingOnlyWhenItIsTheOutputHead() throws Exception {
        for (boolean tied : new boolean[] {true, false}) {
            Path file = SyntheticModel.write(tiny(tied), WeightFormat.Q8_0, 1, dir.resolve(tied + ".gguf"));
            try (GGUFFile gguf = GGUFFile.open(file)) {
                var f = ModelFootprint.of(gguf);
                assertThat(f.type()).isEqualTo("Q8_0");
                assertThat(f.name()).isEqualTo("synthetic tiny");
                assertThat(f.parameters()).isEqualTo(tiny(tied).parameterCount());
                long embedding = gguf.tensor("token_embd.weight").byteSize();
                long row = embedding / 1024;
                assertThat(f.bytesPerToken()).isEqualTo(tied ? f.tensorBytes() : f.tensorBytes() - embedding + row);
            }
        }
    }

    @Test
    void bandwidthAndLimit() {
        double bandwidth = MemoryBandwidth.measure(new WorkerPool(2), 32L << 20);
        assertThat(bandwidth).isGreaterThan(1e8);
        var limit = new DecodeLimit(30e9, 1_000_000_000L);
        assertThat(limit.tokensPerSecond()).isEqualTo(30.0);
        assertThat(limit.fraction(24)).isCloseTo(0.8, within(1e-12));
    }
}
