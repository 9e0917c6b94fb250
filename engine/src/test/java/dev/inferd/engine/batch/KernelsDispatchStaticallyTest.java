package dev.inferd.engine.batch;

import dev.inferd.engine.CompileLog;
import dev.inferd.engine.OwnJvm;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.model.Model;
import dev.inferd.engine.model.synthetic.SyntheticModel;
import dev.inferd.engine.model.synthetic.SyntheticShape;
import dev.inferd.engine.model.synthetic.WeightFormat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * After the engine's warm-up for models of several weight formats and architectures in one process (as a server with several models
 * runs them), no kernel of the weight products that C2 compiled dispatches a Vector API call on a profile that the Vector
 * API's own methods hold ({@code FloatVector.fma}'s, {@code intoArray}'s): those profiles are filled by every
 * caller's vectors, of every shape the process uses, so whether C2 inlined one shape or two, and then boxed a
 * kernel's vectors on every step for the rest of the process, depended on which code happened to run first. The
 * kernels type such vectors exactly ({@link dev.inferd.engine.tensor.vector.VectorClasses}); this finds any that do not.
 */
@Tag("jit")
class KernelsDispatchStaticallyTest {
    private static final SyntheticShape SHAPE = new SyntheticShape("dispatch-llama", "llama", 512, 2, 8, 4, 1024, 2000, 512,
            10_000f, 1e-5f, true, false, null);
    /** Gemma 2's soft-capped attention and logits, sliding window and all. */
    private static final SyntheticShape GEMMA2 = new SyntheticShape("dispatch-gemma2", "gemma2", 512, 2, 8, 4, 1024, 2000, 512,
            10_000f, 1e-6f, true, false, null, 64, 128);
    private static final List<String> FORMATS = List.of("Q4_K_M", "Q4_0", "Q8_0", "Q5_0", "F16");
    /**
     * The packages checked: the weight products' kernels. The model code's (attention, norms, SiLU, the softmax's
     * exponential in {@code Lanes}) still dispatches some calls on shared profiles: typed exactly, SiLU's and the
     * exponential's steps ran as the Vector API's Java code once compiled, and decoding slowed by a tenth.
     */
    private static final List<String> KERNELS = List.of("dev.inferd.engine.tensor.product.", "dev.inferd.engine.tensor.format.");

    @Test
    void noCompiledProductKernelDispatchesAVectorCallOnASharedProfile(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("compilation.log");
        OwnJvm.run(WarmUps.class, CompileLog.flags(log), dir.toString());
        // an OSR compile serves only a loop that started in the interpreter: a warm-up's first calls
        var compiles = CompileLog.c2Compiles(log).stream()
                .filter(c -> KERNELS.stream().anyMatch(c.method()::startsWith) && !c.osr()).toList();
        assertThat(compiles).as("C2's compiles of the engine's methods").isNotEmpty();
        List<String> dispatched = compiles.stream()
                .flatMap(c -> c.sharedProfileCalls().stream().map(call -> c.method().split(" \\(")[0] + ": " + call))
                .distinct().sorted().toList();
        assertThat(dispatched).as("Vector API calls dispatched on a shared profile, by compiled method").isEmpty();
    }

    /** The other JVM's side: each format's model written, loaded and warmed up as a server does. */
    public static final class WarmUps {
        public static void main(String[] args) throws Exception {
            Path dir = Path.of(args[0]);
            for (String format : FORMATS) warmUp(SHAPE, WeightFormat.named(format), dir);
            warmUp(GEMMA2, WeightFormat.Q8_0, dir);
        }

        private static void warmUp(SyntheticShape shape, WeightFormat format, Path dir) throws Exception {
            Path file = SyntheticModel.write(shape, format, 1, dir.resolve(shape.name() + "-" + format.name() + ".gguf"));
            try (GGUFFile gguf = GGUFFile.open(file)) {
                WarmUp.run(Model.load(gguf, 64), () -> false);
            }
        }
    }
}
