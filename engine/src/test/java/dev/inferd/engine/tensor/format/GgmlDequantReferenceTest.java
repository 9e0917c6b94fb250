package dev.inferd.engine.tensor.format;

import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.tensor.format.Quantizer;
import dev.inferd.engine.gguf.GGMLType;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Blocks quantized by ggml itself (llama.cpp c392e5094, see the resource's "generator") decode here to
 * exactly ggml's floats, through the scalar reference and through the kernels' row decoding (ggml's
 * fp16 to fp32 is exact and both sides compute each value with the same float operations). For Q4_1,
 * Q5_0 and Q5_1 our quantizer also writes ggml's exact bytes.
 */
class GgmlDequantReferenceTest {
    private static final Pattern TYPE = Pattern.compile(
            "\"type\"\\s*:\\s*\"(\\w+)\".*?\"quantized_hex\"\\s*:\\s*\"([0-9a-f]+)\".*?\"dequantized\"\\s*:\\s*\\[([^\\]]*)\\]",
            Pattern.DOTALL);

    @Test
    void ourDecodingEqualsGgmlsForEveryType() throws IOException {
        String json = resource();
        float[] input = floats(field(json, "input"));
        Matcher m = TYPE.matcher(json);
        int checked = 0;
        while (m.find()) {
            GGMLType type = GGMLType.valueOf(m.group(1).toUpperCase());
            byte[] bytes = HexFormat.of().parseHex(m.group(2));
            float[] expected = floats(m.group(3));
            int n = expected.length;
            assertThat(Quantizer.dequantize(type, bytes, n)).as("%s reference decoding", type).containsExactly(expected);
            float[] row = new float[n];
            WeightMatrices.of(type, 1, n, MemorySegment.ofArray(bytes)).dequantizeRow(0, row, 0);
            assertThat(row).as("%s kernel decoding", type).containsExactly(expected);
            if (type == GGMLType.Q4_1 || type == GGMLType.Q5_0 || type == GGMLType.Q5_1) {
                assertThat(Quantizer.quantize(type, input)).as("%s quantized bytes", type).isEqualTo(bytes);
            }
            checked++;
        }
        assertThat(checked).isGreaterThanOrEqualTo(12);
    }

    private static String resource() throws IOException {
        try (InputStream in = GgmlDequantReferenceTest.class.getResourceAsStream("ggml-dequant-reference.json")) {
            assertThat(in).as("ggml-dequant-reference.json on the test classpath").isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*\\[([^\\]]*)\\]").matcher(json);
        assertThat(m.find()).as(name).isTrue();
        return m.group(1);
    }

    private static float[] floats(String list) {
        String[] parts = list.split(",");
        float[] v = new float[parts.length];
        for (int i = 0; i < parts.length; i++) v[i] = Float.parseFloat(parts[i].trim());
        return v;
    }
}
