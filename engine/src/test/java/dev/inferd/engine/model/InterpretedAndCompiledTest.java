package dev.inferd.engine.model;

import dev.inferd.engine.OwnJvm;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.model.synthetic.SyntheticModel;
import dev.inferd.engine.model.synthetic.SyntheticShape;
import dev.inferd.engine.model.synthetic.WeightFormat;
import dev.inferd.engine.tensor.parallel.WorkerPool;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same request gives the same bits whether the JIT has compiled the engine or not: a server's
 * first request runs partly interpreted, later ones compiled, and a seed must give the same tokens
 * either way. A model's logits in a JVM that only interprets ({@code -Xint}, where the Vector API
 * runs its Java fallback) must equal those of this JVM once warmed. {@code lanewise(EXP)} in the
 * feed-forward's SiLU broke this: its intrinsic and its fallback differ in the last bits, and a 1B
 * Q4_K_M file gave other greedy tokens on a server's first request than on later ones.
 *
 * <p>Slow: the interpreted JVM runs the Vector API's Java fallback, about a quarter of a minute on two cores.
 */
@Tag("slow")
class InterpretedAndCompiledTest {
    private static final SyntheticShape SHAPE = new SyntheticShape("jit-llama", "llama", 32, 2, 4, 2, 1024, 1000, 64,
            500_000f, 1e-5f, true, false, null);
    private static final int[] PROMPT = {1, 40, 50, 60, 70, 80, 90, 95, 99, 100};

    @TempDir
    Path dir;

    /**
     * F16 weights: their products take the activations as they are, so a difference in the last bit of
     * any step reaches the logits (int8 activations would round most of them away).
     */
    @Test
    void logitsAreTheSameInterpretedAndCompiled() throws Exception {
        Path model = SyntheticModel.write(SHAPE, WeightFormat.F16, 9, dir.resolve("m.gguf"));
        String compiled = null;
        for (int warm = 0; warm < 20; warm++) compiled = fingerprint(model);
        assertThat(interpreted(model)).isEqualTo(compiled);
    }

    /** The prompt's last logits and those of three greedy steps, as the tokens and a hash of every bit. */
    static String fingerprint(Path model) throws IOException {
        try (GGUFFile gguf = GGUFFile.open(model)) {
            Model m = Model.load(gguf, 16);
            var cache = m.newKVCache(1, 64);
            float[] row = m.forward(Batch.ofPrompt(0, 0, PROMPT), cache).row(0);
            List<Integer> tokens = new ArrayList<>();
            int hash = 1;
            for (int step = 0; step < 4; step++) {
                for (float v : row) hash = 31 * hash + Float.floatToRawIntBits(v);
                int token = 0;
                for (int i = 1; i < row.length; i++) if (row[i] > row[token]) token = i;
                tokens.add(token);
                var one = new Batch(1);
                one.add(0, PROMPT.length + step, token, true);
                row = m.forward(one, cache).row(0);
            }
            return tokens + " " + Integer.toHexString(hash);
        }
    }

    /** {@link #fingerprint} in a JVM of its own with this one's flags and {@code -Xint}. */
    private static String interpreted(Path model) throws Exception {
        String[] lines = OwnJvm.run(Interpreted.class, List.of("-Xint"), model.toString()).strip().split("\n");
        return lines[lines.length - 1].strip();
    }

    /** The interpreted side: prints {@link #fingerprint} of the model file given. */
    public static final class Interpreted {
        public static void main(String[] args) throws IOException {
            WorkerPool.configure(2);
            System.out.println(fingerprint(Path.of(args[0])));
        }
    }
}
