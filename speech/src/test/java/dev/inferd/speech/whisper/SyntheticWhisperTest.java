package dev.inferd.speech.whisper;

import dev.inferd.engine.gguf.GGMLType;
import io.github.givimad.whisperjni.WhisperJNI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SyntheticWhisperTest {
    /** Tiny's vocabulary and contexts with a narrow, shallow body: files of a few megabytes. */
    static final WhisperShape MICRO = new WhisperShape("whisper-micro", 51865, 64, 2, 1, 1, 80);

    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(value = GGMLType.class, names = {"F32", "F16", "Q8_0", "Q5_1"})
    void writesFilesThatReadBackWithTheirShapesAndTypes(GGMLType type) throws IOException {
        Path file = new SyntheticWhisper.Spec(MICRO, type, 7, 0.02f).write(tmp.resolve("m.bin"));
        try (var f = WhisperModelFile.open(file)) {
            assertThat(f.hparams()).isEqualTo(MICRO.hparams(SyntheticWhisper.fileType(type) % 1000));
            assertThat(f.words()).hasSize(50257);
            assertThat(f.tensors()).hasSize(SyntheticWhisper.plan(MICRO, type, 0.02f).size());
            assertThat(f.tensor("decoder.blocks.0.cross_attn.key.weight").type()).isEqualTo(type);
            assertThat(f.tensor("encoder.conv1.weight").type()).isEqualTo(type == GGMLType.F32 ? GGMLType.F32 : GGMLType.F16);
            assertThat(f.tensor("encoder.conv1.weight").ne()).containsExactly(3, 80, 64);
            assertThat(f.tensor("decoder.token_embedding.weight").ne()).containsExactly(64, 51865);
            var m = f.matrix("encoder.blocks.0.mlp.0.weight");
            assertThat(m.rows()).isEqualTo(256);
            assertThat(m.cols()).isEqualTo(64);
            float[] ln = f.floats("encoder.ln_post.weight");
            assertThat(ln).hasSize(64);
            for (float v : ln) assertThat(v).isBetween(0.9f, 1.1f);
            assertThat(f.melFilters()).containsExactly(MelFilters.of(80));
        }
    }

    @Test
    void whisperCppLoadsTheFile() throws IOException {
        Path file = new SyntheticWhisper.Spec(MICRO, GGMLType.F16, 7, 0.02f).write(tmp.resolve("m.bin"));
        WhisperJNI.loadLibrary();
        var jni = new WhisperJNI();
        try (var ctx = jni.init(file)) {
            assertThat(ctx).isNotNull();
            assertThat(jni.isMultilingual(ctx)).isTrue();
        }
    }

    @Test
    void parsesTheBenchCommandsSpec() {
        var spec = SyntheticWhisper.Spec.parse("whisper-large-v3:q8_0");
        assertThat(spec.shape()).isEqualTo(WhisperShape.LARGE_V3);
        assertThat(spec.type()).isEqualTo(GGMLType.Q8_0);
        assertThat(spec.fileName()).isEqualTo("ggml-whisper-large-v3-Q8_0-seed1.bin");
        assertThat(SyntheticWhisper.Spec.parse("tiny:F16").shape()).isEqualTo(WhisperShape.TINY);
        assertThatThrownBy(() -> SyntheticWhisper.Spec.parse("whisper-huge:F16")).hasMessageContaining("known");
        assertThatThrownBy(() -> SyntheticWhisper.plan(WhisperShape.TINY, GGMLType.Q4_K, 0.02f)).hasMessageContaining("384");
        assertThat(SyntheticWhisper.plan(WhisperShape.LARGE_V3, GGMLType.Q4_K, 0.02f)).isNotEmpty();
    }
}
