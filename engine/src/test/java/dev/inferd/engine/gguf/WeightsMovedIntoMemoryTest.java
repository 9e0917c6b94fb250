package dev.inferd.engine.gguf;

import dev.inferd.engine.model.synthetic.SyntheticModel;
import dev.inferd.engine.model.synthetic.SyntheticShape;
import dev.inferd.engine.model.synthetic.WeightFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link GGUFFile#moveIntoMemory}: the weights read in place get copies of their own, so the file can
 * change under them; a released tensor (read from a copy from now on) is left out, and another mapping
 * of the file that did not move still reads the file as it is.
 */
class WeightsMovedIntoMemoryTest {
    private static final SyntheticShape SHAPE = new SyntheticShape("moved", "llama", 256, 2, 4, 2, 512, 1024, 256,
            500_000f, 1e-5f, true, false, null);

    @TempDir
    Path dir;

    @Test
    void movedWeightsNoLongerReadTheFileAndReleasedOnesAreLeftOut() throws IOException {
        assumeTrue(System.getProperty("os.name").startsWith("Linux"), "moving needs Linux's madvise");
        Path model = SyntheticModel.write(SHAPE, WeightFormat.Q5_K_M, 5, dir.resolve("m.gguf"));
        try (GGUFFile moved = GGUFFile.open(model); GGUFFile mapped = GGUFFile.open(model)) {
            TensorInfo kept = moved.tensor("blk.0.ffn_up.weight");
            TensorInfo released = moved.tensor("blk.1.ffn_up.weight");
            byte[] keptBytes = moved.tensorData(kept).toArray(ValueLayout.JAVA_BYTE);
            assertThat(keptBytes).as("random weights").contains((byte) 1);

            moved.release(released);
            long bytes = moved.moveIntoMemory();
            try (var file = new RandomAccessFile(model.toFile(), "rw")) {
                file.write(new byte[(int) file.length()]); // the whole file zeroed under both mappings
            }

            assertThat(bytes).isBetween(kept.byteSize(), moved.fileSize() - released.byteSize());
            assertThat(moved.tensorData(kept).toArray(ValueLayout.JAVA_BYTE)).as("moved").isEqualTo(keptBytes);
            var inner = moved.tensorData(released).asSlice(8192, released.byteSize() - 2 * 8192); // its edge pages may be a neighbour's
            assertThat(inner.toArray(ValueLayout.JAVA_BYTE)).as("released, not moved").containsOnly((byte) 0);
            assertThat(mapped.tensorData(kept).toArray(ValueLayout.JAVA_BYTE)).as("another mapping, not moved").containsOnly((byte) 0);
        }
    }
}
