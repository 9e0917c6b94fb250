package dev.inferd.engine.gguf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GGUFWriterTest {
    @TempDir
    Path dir;

    @Test
    void metadataOfEveryTypeRoundTrips() throws IOException {
        Path file = dir.resolve("meta.gguf");
        new GGUFWriter()
                .put("general.architecture", "llama")
                .put("general.name", "tëst ✓")
                .put("llama.block_count", 22)
                .put("llama.attention.layer_norm_rms_epsilon", 1e-5f)
                .put("flag", true)
                .putInt32("signed", -7)
                .putUInt64("u64", 1L << 40)
                .putInt64("i64", -(1L << 40))
                .putFloat64("f64", Math.PI)
                .put("u8", GGUFWriter.ValueType.UINT8, 200)
                .put("i8", GGUFWriter.ValueType.INT8, -3)
                .put("u16", GGUFWriter.ValueType.UINT16, 60000)
                .put("i16", GGUFWriter.ValueType.INT16, -300)
                .put("tokenizer.ggml.tokens", new String[] {"<s>", "a", "ü"})
                .put("tokenizer.ggml.merges", List.of("a b", "c d"))
                .put("tokenizer.ggml.scores", new float[] {0f, -1.5f, 2.25f})
                .put("tokenizer.ggml.token_type", new int[] {3, 1, 1})
                .put("bools", new boolean[] {true, false})
                .putArray("u32s", GGUFWriter.ValueType.UINT32, new int[] {1, 2})
                .putArray("i64s", GGUFWriter.ValueType.INT64, new long[] {-1, 5})
                .putArray("f64s", GGUFWriter.ValueType.FLOAT64, new double[] {0.5})
                .putArray("u8s", GGUFWriter.ValueType.UINT8, new byte[] {1, (byte) 255})
                .putArray("i16s", GGUFWriter.ValueType.INT16, new short[] {-2})
                .write(file);

        try (GGUFFile g = GGUFFile.open(file)) {
            assertThat(g.version()).isEqualTo(3);
            assertThat(g.architecture()).isEqualTo("llama");
            assertThat(g.getString("general.name", null)).isEqualTo("tëst ✓");
            assertThat(g.metadata().get("llama.block_count")).isEqualTo(22L); // u32 reads as Long
            assertThat(g.metadata().get("llama.attention.layer_norm_rms_epsilon")).isEqualTo(1e-5f);
            assertThat(g.metadata().get("flag")).isEqualTo(true);
            assertThat(g.metadata().get("signed")).isEqualTo(-7); // i32 reads as Integer
            assertThat(g.metadata().get("u64")).isEqualTo(1L << 40);
            assertThat(g.metadata().get("i64")).isEqualTo(-(1L << 40));
            assertThat(g.metadata().get("f64")).isEqualTo(Math.PI);
            assertThat(g.metadata().get("u8")).isEqualTo(200);
            assertThat(g.metadata().get("i8")).isEqualTo(-3);
            assertThat(g.metadata().get("u16")).isEqualTo(60000);
            assertThat(g.metadata().get("i16")).isEqualTo(-300);
            assertThat((String[]) g.metadata().get("tokenizer.ggml.tokens")).containsExactly("<s>", "a", "ü");
            assertThat((String[]) g.metadata().get("tokenizer.ggml.merges")).containsExactly("a b", "c d");
            assertThat((float[]) g.metadata().get("tokenizer.ggml.scores")).containsExactly(0f, -1.5f, 2.25f);
            assertThat((int[]) g.metadata().get("tokenizer.ggml.token_type")).containsExactly(3, 1, 1);
            assertThat((boolean[]) g.metadata().get("bools")).containsExactly(true, false);
            assertThat((int[]) g.metadata().get("u32s")).containsExactly(1, 2);
            assertThat((long[]) g.metadata().get("i64s")).containsExactly(-1L, 5L);
            assertThat((double[]) g.metadata().get("f64s")).containsExactly(0.5);
            assertThat((byte[]) g.metadata().get("u8s")).containsExactly(1, (byte) 255);
            assertThat((short[]) g.metadata().get("i16s")).containsExactly((short) -2);
            assertThat(g.tensors()).isEmpty();
        }
    }

    @Test
    void metadataTypesAreTheOnesLlamaCppExpects() throws IOException {
        Path file = dir.resolve("types.gguf");
        new GGUFWriter()
                .put("llama.context_length", 128)
                .put("llama.rope.freq_base", 10000f)
                .put("tokenizer.ggml.token_type", new int[] {1})
                .write(file);
        byte[] b = Files.readAllBytes(file);
        // header 24 bytes, then key length (8) + key, then the value type (u32 = 4)
        int typeAt = 24 + 8 + "llama.context_length".length();
        assertThat(b[typeAt]).isEqualTo((byte) 4);
        int next = typeAt + 4 + 4;
        int f32TypeAt = next + 8 + "llama.rope.freq_base".length();
        assertThat(b[f32TypeAt]).isEqualTo((byte) 6);
        int arrTypeAt = f32TypeAt + 4 + 4 + 8 + "tokenizer.ggml.token_type".length();
        assertThat(b[arrTypeAt]).isEqualTo((byte) 9);
        assertThat(b[arrTypeAt + 4]).isEqualTo((byte) 5); // items are i32
    }

    @Test
    void tensorsRoundTripAlignedInOrder() throws IOException {
        Path file = dir.resolve("tensors.gguf");
        byte[] norm = new byte[3 * 4];
        for (int i = 0; i < norm.length; i++) norm[i] = (byte) (i + 1);
        byte[] q8 = new byte[2 * 34];
        for (int i = 0; i < q8.length; i++) q8[i] = (byte) (100 - i);
        new GGUFWriter()
                .put("general.architecture", "llama")
                .addTensor("norm", GGMLType.F32, new long[] {3}, norm)
                .addTensor("w", GGMLType.Q8_0, new long[] {32, 2}, out -> {
                    out.write(q8, 0, 10);
                    out.write(q8, 10, q8.length - 10);
                    out.close(); // must not close the file
                })
                .addTensor("e", GGMLType.F16, new long[] {2, 1, 1}, new byte[] {1, 2, 3, 4})
                .write(file);

        try (GGUFFile g = GGUFFile.open(file)) {
            assertThat(g.tensors().keySet()).containsExactly("norm", "w", "e");
            TensorInfo w = g.tensor("w");
            assertThat(w.dims()).containsExactly(32, 2);
            assertThat(w.type()).isEqualTo(GGMLType.Q8_0);
            assertThat(w.rows()).isEqualTo(2);
            for (TensorInfo t : g.tensors().values()) assertThat(t.offset() % 32).isZero();
            assertThat(g.tensorData("norm").toArray(ValueLayout.JAVA_BYTE)).containsExactly(norm);
            assertThat(g.tensorData(w).toArray(ValueLayout.JAVA_BYTE)).containsExactly(q8);
            assertThat(g.tensor("e").dims()).containsExactly(2, 1, 1);
            assertThat(g.tensorData("e").toArray(ValueLayout.JAVA_BYTE)).containsExactly(1, 2, 3, 4);
        }
    }

    @Test
    void nonDefaultAlignmentIsWrittenAndUsed() throws IOException {
        Path file = dir.resolve("align.gguf");
        new GGUFWriter().alignment(64)
                .addTensor("a", GGMLType.F32, new long[] {1}, new byte[4])
                .addTensor("b", GGMLType.F32, new long[] {1}, new byte[] {9, 9, 9, 9})
                .write(file);
        try (GGUFFile g = GGUFFile.open(file)) {
            assertThat(g.metadata().get("general.alignment")).isEqualTo(64L);
            assertThat(g.tensor("b").offset()).isEqualTo(64);
            assertThat(g.tensorData("b").toArray(ValueLayout.JAVA_BYTE)).containsExactly(9, 9, 9, 9);
        }
    }

    @Test
    void rejectsBadInput() {
        var w = new GGUFWriter();
        assertThatThrownBy(() -> w.addTensor("x", GGMLType.Q8_0, new long[] {30, 2}, new byte[0]))
                .hasMessageContaining("not a multiple");
        assertThatThrownBy(() -> w.addTensor("x", GGMLType.F32, new long[] {2}, new byte[7]))
                .hasMessageContaining("needs 8 bytes");
        assertThatThrownBy(() -> w.put("n", -1)).hasMessageContaining("negative");
        assertThatThrownBy(() -> w.putArray("a", GGUFWriter.ValueType.UINT32, new long[1])).hasMessageContaining("int[]");
        w.addTensor("short", GGMLType.F32, new long[] {2}, out -> out.write(new byte[4]));
        assertThatThrownBy(() -> w.write(dir.resolve("bad.gguf"))).hasMessageContaining("wrote 4 bytes");
    }

    @Test
    void anArrayOrStringThatRunsPastTheEndIsAFormatError() throws IOException {
        Path file = dir.resolve("whole.gguf");
        new GGUFWriter().put("general.architecture", "llama").put("tokenizer.ggml.scores", new float[1000]).write(file);
        byte[] whole = Files.readAllBytes(file);
        // cut inside the scores: their count says 1000, the file holds fewer
        Path cut = Files.write(dir.resolve("cut.gguf"), java.util.Arrays.copyOf(whole, whole.length - 3000));
        assertThatThrownBy(() -> GGUFFile.open(cut).close())
                .isInstanceOf(GGUFFormatException.class).hasMessageContaining("runs past the end");

        Path name = dir.resolve("name.gguf");
        new GGUFWriter().put("general.architecture", "llama").put("general.name", "x".repeat(5000)).write(name);
        byte[] named = Files.readAllBytes(name);
        Path cutName = Files.write(dir.resolve("cut-name.gguf"), java.util.Arrays.copyOf(named, named.length - 4000));
        assertThatThrownBy(() -> GGUFFile.open(cutName).close())
                .isInstanceOf(GGUFFormatException.class).hasMessageContaining("runs past the end");
    }
}
