package dev.inferd.engine.model.synthetic;

import dev.inferd.engine.model.Batch;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.gguf.TensorInfo;
import dev.inferd.engine.model.Logits;
import dev.inferd.engine.model.Model;
import dev.inferd.engine.model.synthetic.SyntheticModel.PlannedTensor;
import dev.inferd.engine.tokenizer.Tokenizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SyntheticModelTest {
    @TempDir
    Path dir;

    /** Llama 3.2 1B scaled down: GQA, tied output, Llama 3 rope factors. */
    static final SyntheticShape SMALL_LLAMA = new SyntheticShape("small-llama", "llama", 128, 2, 4, 2, 256, 1024, 512,
            500_000f, 1e-5f, true, false, new SyntheticShape.Llama3Rope(32f, 1f, 4f, 64));
    /** Qwen2.5 scaled down: biases, tied output. */
    static final SyntheticShape SMALL_QWEN2 = new SyntheticShape("small-qwen2", "qwen2", 128, 2, 4, 2, 256, 1024, 512,
            1_000_000f, 1e-6f, true, true, null);
    /** A separate output head. */
    static final SyntheticShape SMALL_UNTIED = new SyntheticShape("small-untied", "llama", 64, 2, 4, 4, 160, 1000, 256,
            10_000f, 1e-5f, false, false, null);

    @Test
    void fullSizeShapesHaveTheRealModelsParameterCounts() {
        // The published counts (embedding counted once for tied models), plus Llama 3's 32 rope factors.
        assertThat(SyntheticShape.SMOLLM2_135M.parameterCount()).isEqualTo(134_515_008L);
        assertThat(SyntheticShape.QWEN2_5_0_5B.parameterCount()).isEqualTo(494_032_768L);
        assertThat(SyntheticShape.LLAMA_3_2_1B.parameterCount()).isEqualTo(1_235_814_400L + 32);
    }

    @Test
    void fullSizePlanHasLlamaCppsTensorsAndSizes() {
        var plan = SyntheticModel.plan(SyntheticShape.LLAMA_3_2_1B, WeightFormat.Q8_0);
        assertThat(plan).extracting(PlannedTensor::name).doesNotContain("output.weight").contains("rope_freqs.weight");
        assertThat(plan).hasSize(1 + 1 + 16 * 9 + 1);
        PlannedTensor embd = plan.getFirst();
        assertThat(embd.name()).isEqualTo("token_embd.weight");
        assertThat(embd.type()).isEqualTo(GGMLType.Q8_0);
        assertThat(embd.dims()).containsExactly(2048, 128256);
        assertThat(embd.bytes()).isEqualTo(128256L * 2048 / 32 * 34);
        PlannedTensor down = plan.stream().filter(t -> t.name().equals("blk.0.ffn_down.weight")).findFirst().orElseThrow();
        assertThat(down.dims()).containsExactly(8192, 2048);
        assertThat(plan).filteredOn(t -> t.dims().length == 1).allMatch(t -> t.type() == GGMLType.F32);
        // 1.24 B weights in Q8_0 is about 1.31 GB, the size of llama.cpp's Llama-3.2-1B Q8_0 file.
        long bytes = new SyntheticModel.Spec(SyntheticShape.LLAMA_3_2_1B, WeightFormat.Q8_0, 1).tensorBytes();
        assertThat(bytes).isBetween(1_310_000_000L, 1_316_000_000L);

        var qwen = SyntheticModel.plan(SyntheticShape.QWEN2_5_0_5B, WeightFormat.Q4_0);
        assertThat(qwen).extracting(PlannedTensor::name).contains("blk.23.attn_k.bias");
        assertThat(qwen).filteredOn(t -> t.name().equals("blk.0.attn_k.weight")).singleElement()
                .satisfies(t -> assertThat(t.dims()).containsExactly(896, 128));
    }

    @Test
    void llama3RopeFactorsFollowTheWavelengthBands() {
        float[] f = SyntheticShape.LLAMA_3_2_1B.llama3Rope().frequencyFactors(500_000f, 64);
        assertThat(f).hasSize(32);
        assertThat(f[0]).isEqualTo(1f);            // short wavelengths are kept
        assertThat(f[31]).isEqualTo(32f);          // long ones are slowed by the factor
        for (int i = 1; i < f.length; i++) assertThat(f[i]).isGreaterThanOrEqualTo(f[i - 1]);
    }

    @ParameterizedTest
    @ValueSource(strings = {"Q8_0", "Q4_0", "F16", "BF16", "F32"})
    void smallShapesLoadAndRunAForwardPass(String type) throws Exception {
        for (SyntheticShape shape : new SyntheticShape[] {SMALL_LLAMA, SMALL_QWEN2, SMALL_UNTIED}) {
            Path file = SyntheticModel.write(shape, WeightFormat.named(type), 7, dir.resolve(shape.name() + type + ".gguf"));
            try (GGUFFile gguf = GGUFFile.open(file)) {
                assertThat(gguf.getInt("general.file_type", -1)).isEqualTo(WeightFormat.named(type).fileType());
                assertThat(gguf.tensors().containsKey("output.weight")).isEqualTo(!shape.tiedOutput());
                Model model = Model.load(gguf, 8);
                assertThat(model.config().vocabSize()).isEqualTo(shape.vocabSize());
                var cache = model.newKVCache(1, 64);
                Logits logits = model.forward(Batch.ofPrompt(0, 0, new int[] {1, 400, 500, 600, 700}), cache);
                float[] row = logits.row(0);
                assertThat(allFinite(row)).isTrue();
                double spread = Math.sqrt(Arrays.stream(toDoubles(row)).map(v -> v * v).average().orElseThrow());
                assertThat(spread).as("logits of %s %s are neither zero nor huge", shape.name(), type).isBetween(0.05, 10.0);
                var one = new Batch(1);
                one.add(0, 5, logits.argmax(0), true);
                assertThat(allFinite(model.forward(one, cache).row(0))).isTrue();

                Tokenizer tokenizer = Tokenizer.fromGGUF(gguf);
                assertThat(tokenizer.encode("ab cd", true, false))
                        .containsExactly(SyntheticVocabulary.BOS, wordId("ab", shape), wordId("cd", shape));
            }
        }
    }

    @Test
    void theContentIsAFunctionOfTheSeed() throws Exception {
        Path a = SyntheticModel.write(SMALL_QWEN2, WeightFormat.Q4_0, 3, dir.resolve("a.gguf"));
        Path b = SyntheticModel.write(SMALL_QWEN2, WeightFormat.Q4_0, 3, dir.resolve("b.gguf"));
        Path c = SyntheticModel.write(SMALL_QWEN2, WeightFormat.Q4_0, 4, dir.resolve("c.gguf"));
        assertThat(Files.mismatch(a, b)).isEqualTo(-1);
        assertThat(Files.mismatch(a, c)).isNotEqualTo(-1);
        assertThat(Files.size(c)).isEqualTo(Files.size(a));
        try (GGUFFile gguf = GGUFFile.open(a)) {
            long sum = gguf.tensors().values().stream().mapToLong(TensorInfo::byteSize).sum();
            long planned = SyntheticModel.plan(SMALL_QWEN2, WeightFormat.Q4_0).stream().mapToLong(PlannedTensor::bytes).sum();
            assertThat(sum).isEqualTo(planned);
        }
    }

    @Test
    void aFamilysControlTokenTakesAFillersPlace() throws Exception {
        int size = SyntheticVocabulary.MIN_SIZE + 8;
        int id = SyntheticVocabulary.MIN_SIZE + 3;
        var w = new dev.inferd.engine.gguf.GGUFWriter().put("general.architecture", "phi3");
        SyntheticVocabulary.addTo(w, size, java.util.Map.of(id, "<|endoftext|>"));
        Path file = dir.resolve("vocabulary.gguf");
        w.write(file);
        try (GGUFFile gguf = GGUFFile.open(file)) {
            String[] tokens = (String[]) gguf.metadata().get("tokenizer.ggml.tokens");
            assertThat(tokens).hasSize(size);
            assertThat(tokens[id]).isEqualTo("<|endoftext|>");
            assertThat(tokens[id - 1]).isEqualTo(SyntheticVocabulary.tokens(size).get(id - 1));
            assertThat(((int[]) gguf.metadata().get("tokenizer.ggml.token_type"))[id]).as("control").isEqualTo(3);
        }
    }

    @Test
    void specsParseShapeAndType() {
        var spec = SyntheticModel.Spec.parse("Llama-3.2-1B:q8_0");
        assertThat(spec.shape()).isEqualTo(SyntheticShape.LLAMA_3_2_1B);
        assertThat(spec.format()).isEqualTo(WeightFormat.Q8_0);
        assertThat(spec.fileName()).isEqualTo("llama-3.2-1b-Q8_0-seed1.gguf");
        assertThatThrownBy(() -> SyntheticModel.Spec.parse("smollm2-135m")).hasMessageContaining("<shape>:<type>");
        assertThatThrownBy(() -> SyntheticModel.Spec.parse("gpt5:Q8_0")).hasMessageContaining("smollm2-135m");
        assertThatThrownBy(() -> SyntheticModel.Spec.parse("smollm2-135m:Q3_K")).hasMessageContaining("Q4_0");
    }

    @Test
    void aThirdPartIsTheSeed() {
        var spec = SyntheticModel.Spec.parse("qwen2.5-1.5b:Q4_0:2");
        assertThat(spec.shape()).isEqualTo(SyntheticShape.QWEN2_5_1_5B);
        assertThat(spec.seed()).isEqualTo(2);
        assertThat(spec.fileName()).isEqualTo("qwen2.5-1.5b-Q4_0-seed2.gguf");
        assertThat(SyntheticShape.QWEN2_5_1_5B.vocabSize()).as("a draft's vocabulary").isEqualTo(SyntheticShape.QWEN2_5_0_5B.vocabSize());
        assertThatThrownBy(() -> SyntheticModel.Spec.parse("smollm2-135m:Q8_0:two")).hasMessageContaining("whole number");
        assertThatThrownBy(() -> SyntheticModel.Spec.parse("smollm2-135m:Q8_0:1:2")).hasMessageContaining("<shape>:<type>");
    }

    @Test
    void aRowThatIsNotAWholeNumberOfBlocksIsRefused() {
        var odd = new SyntheticShape("odd", "llama", 48, 1, 4, 4, 96, 1000, 64, 10_000f, 1e-5f, true, false, null);
        assertThatThrownBy(() -> SyntheticModel.plan(odd, WeightFormat.Q8_0)).hasMessageContaining("block size 32");
    }

    private static int wordId(String word, SyntheticShape shape) {
        return SyntheticVocabulary.tokens(shape.vocabSize()).indexOf("\u2581" + word);
    }

    private static boolean allFinite(float[] f) {
        for (float v : f) if (!Float.isFinite(v)) return false;
        return true;
    }

    private static double[] toDoubles(float[] f) {
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) d[i] = f[i];
        return d;
    }
}
