package dev.inferd.engine.tensor.copies;

import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.tensor.copies.CopyCacheFile;
import dev.inferd.engine.tensor.copies.CopyStore;
import dev.inferd.engine.model.Batch;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.model.Model;
import dev.inferd.engine.model.synthetic.SyntheticModel;
import dev.inferd.engine.model.synthetic.SyntheticShape;
import dev.inferd.engine.model.synthetic.WeightFormat;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The cache of interleaved copies: a load that finds this model file's cache maps it and computes the
 * same logits, bit for bit, as a load that builds the copies, and then moves them into memory of its
 * own; anything that does not match the model
 * file as it is now (another modification time, a torn or altered file) is built again, never used.
 */
class CopyCacheFileTest {
    /** Rows of 256 and 512 columns, so the Q4_K_M mix has Q4_K and Q6_K matrices, every one of them copied. */
    private static final SyntheticShape SHAPE = new SyntheticShape("cache-llama", "llama", 256, 2, 4, 2, 512, 1024, 256,
            500_000f, 1e-5f, true, false, null);
    private static final int[] PROMPT = {1, 400, 500, 600, 700, 800};

    @TempDir
    Path dir;
    private Path model;
    private Path cacheDir;

    @BeforeEach
    void writeModel() throws IOException {
        model = SyntheticModel.write(SHAPE, WeightFormat.Q4_K_M, 5, dir.resolve("m.gguf"));
        cacheDir = dir.resolve("copies");
    }

    @Test
    void aSecondLoadMapsTheSavedCopiesAndComputesTheSameLogits() throws IOException {
        try (GGUFFile gguf = GGUFFile.open(model)) {
            float[] inMemory = logits(Model.load(gguf, 8, CopyStore.inMemory()));

            CopyCacheFile first = CopyCacheFile.open(cacheDir, gguf, WeightMatrices.COPIES);
            assertThat(first.reused()).isFalse();
            assertThat(first.copyBytes()).isPositive();
            float[] built = logits(Model.load(gguf, 8, first));
            assertThat(first.save()).isTrue();
            assertThat(first.file()).exists().isRegularFile();
            try (Stream<Path> files = Files.list(cacheDir)) {
                assertThat(files).as("no temporary file left").containsExactly(first.file());
            }

            CopyCacheFile second = CopyCacheFile.open(cacheDir, gguf, WeightMatrices.COPIES);
            assertThat(second.reused()).isTrue();
            assertThat(second.file()).isEqualTo(first.file());
            float[] mapped = logits(Model.load(gguf, 8, second));
            assertThat(second.save()).as("a cache that was used is not written again").isFalse();

            assertThat(built).isEqualTo(inMemory);
            assertThat(mapped).isEqualTo(inMemory);
        }
    }

    @Test
    void copiesMovedIntoMemoryNoLongerReadTheCacheFile() throws IOException {
        assumeTrue(System.getProperty("os.name").startsWith("Linux"), "moving needs Linux's madvise");
        try (GGUFFile gguf = GGUFFile.open(model)) {
            float[] inMemory = logits(Model.load(gguf, 8, CopyStore.inMemory()));
            CopyCacheFile first = CopyCacheFile.open(cacheDir, gguf, WeightMatrices.COPIES);
            Model.load(gguf, 8, first);
            assertThat(first.save()).isTrue();
            CopyCacheFile moved = CopyCacheFile.open(cacheDir, gguf, WeightMatrices.COPIES);
            Model inAnonymousMemory = Model.load(gguf, 8, moved);
            CopyCacheFile stillMapped = CopyCacheFile.open(cacheDir, gguf, WeightMatrices.COPIES);
            Model mapped = Model.load(gguf, 8, stillMapped);

            assertThat(moved.moveIntoMemory()).isTrue();
            try (var file = new RandomAccessFile(first.file().toFile(), "rw")) {
                file.seek(4096); // past the header: the copies, zeroed under both loaded models
                file.write(new byte[(int) (file.length() - 4096)]);
            }

            assertThat(logits(inAnonymousMemory)).as("moved: its own copies").isEqualTo(inMemory);
            assertThat(logits(mapped)).as("still mapped: reads the file as it is now").isNotEqualTo(inMemory);
        }
    }

    @Test
    void aChangedModelFileOrAnAlteredCacheIsBuiltAgain() throws IOException {
        Path cache;
        try (GGUFFile gguf = GGUFFile.open(model)) {
            CopyCacheFile first = CopyCacheFile.open(cacheDir, gguf, WeightMatrices.COPIES);
            Model.load(gguf, 8, first);
            assertThat(first.save()).isTrue();
            cache = first.file();
            assertThat(CopyCacheFile.open(cacheDir, gguf, WeightMatrices.COPIES).reused()).isTrue();
        }

        Files.setLastModifiedTime(model, FileTime.fromMillis(Files.getLastModifiedTime(model).toMillis() - 60_000));
        try (GGUFFile gguf = GGUFFile.open(model)) {
            assertThat(CopyCacheFile.open(cacheDir, gguf, WeightMatrices.COPIES).reused()).as("model file modified since").isFalse();
            CopyCacheFile again = CopyCacheFile.open(cacheDir, gguf, WeightMatrices.COPIES);
            Model.load(gguf, 8, again);
            assertThat(again.save()).isTrue();
            assertThat(CopyCacheFile.open(cacheDir, gguf, WeightMatrices.COPIES).reused()).isTrue();

            try (var file = new RandomAccessFile(cache.toFile(), "rw")) {
                file.seek(20); // inside the header: the length of the model file's path
                file.write(file.readByte() ^ 1);
            }
            assertThat(CopyCacheFile.open(cacheDir, gguf, WeightMatrices.COPIES).reused()).as("altered header").isFalse();

            CopyCacheFile rebuilt = CopyCacheFile.open(cacheDir, gguf, WeightMatrices.COPIES);
            Model.load(gguf, 8, rebuilt);
            assertThat(rebuilt.save()).isTrue();
            try (var file = new RandomAccessFile(cache.toFile(), "rw")) {
                file.setLength(file.length() - 4096);
            }
            assertThat(CopyCacheFile.open(cacheDir, gguf, WeightMatrices.COPIES).reused()).as("torn file").isFalse();
        }
    }

    @Test
    void savingClearsCachesOfModelsGoneOrChangedOtherFormatsAndAbandonedTemporaryFiles() throws IOException {
        Path gone = SyntheticModel.write(SHAPE, WeightFormat.Q4_0, 6, dir.resolve("gone.gguf"));
        Path goneCache = saveCache(gone);
        Path changed = SyntheticModel.write(SHAPE, WeightFormat.Q4_0, 7, dir.resolve("changed.gguf"));
        Path changedCache = saveCache(changed);
        Path kept = SyntheticModel.write(SHAPE, WeightFormat.Q4_0, 8, dir.resolve("kept.gguf"));
        Path keptCache = saveCache(kept);
        Files.delete(gone);
        Files.setLastModifiedTime(changed, FileTime.fromMillis(Files.getLastModifiedTime(changed).toMillis() - 60_000));
        Path otherFormat = Files.writeString(cacheDir.resolve("old-0123456789abcdef.copies"), "not this format");
        Path abandoned = Files.writeString(cacheDir.resolve("m-1.copies123.partial"), "left by a killed process");
        Files.setLastModifiedTime(abandoned, FileTime.fromMillis(System.currentTimeMillis() - 2 * 86_400_000L));
        Path writing = Files.writeString(cacheDir.resolve("m-2.copies456.partial"), "another process is writing");

        Path saved = saveCache(model);

        assertThat(goneCache).as("its model file is gone").doesNotExist();
        assertThat(changedCache).as("its model file changed").doesNotExist();
        assertThat(otherFormat).doesNotExist();
        assertThat(abandoned).doesNotExist();
        assertThat(writing).as("a temporary file of today may be another process's").exists();
        assertThat(keptCache).exists();
        assertThat(saved).exists();
    }

    private Path saveCache(Path modelFile) throws IOException {
        try (GGUFFile gguf = GGUFFile.open(modelFile)) {
            CopyCacheFile cache = CopyCacheFile.open(cacheDir, gguf, WeightMatrices.COPIES);
            Model.load(gguf, 8, cache);
            assertThat(cache.save()).isTrue();
            return cache.file();
        }
    }

    @Test
    void aCacheThatCannotBeWrittenSaysSoAndTheModelStillLoads() throws IOException {
        Files.writeString(cacheDir, "a file where the directory should be");
        try (GGUFFile gguf = GGUFFile.open(model)) {
            CopyCacheFile cache = CopyCacheFile.open(cacheDir, gguf, WeightMatrices.COPIES);
            float[] logits = logits(Model.load(gguf, 8, cache));
            assertThat(logits(Model.load(gguf, 8, CopyStore.inMemory()))).isEqualTo(logits);
            assertThatThrownBy(cache::save).isInstanceOf(IOException.class);
        }
    }

    @Test
    void aModelWithNothingToCopyWritesNothing() throws IOException {
        Path f16 = SyntheticModel.write(SHAPE, WeightFormat.F16, 5, dir.resolve("f16.gguf"));
        try (GGUFFile gguf = GGUFFile.open(f16)) {
            CopyCacheFile cache = CopyCacheFile.open(cacheDir, gguf, WeightMatrices.COPIES);
            Model.load(gguf, 8, cache);
            assertThat(cache.copyBytes()).isZero();
            assertThat(cache.save()).isFalse();
            assertThat(cacheDir).doesNotExist();
        }
    }

    /** The last prompt position's logits, then those of two generated tokens (the copies' path). */
    private static float[] logits(Model m) {
        var cache = m.newKVCache(1, 64);
        float[] last = m.forward(Batch.ofPrompt(0, 0, PROMPT), cache).row(0).clone();
        int token = argmax(last);
        float[] all = new float[3 * last.length];
        System.arraycopy(last, 0, all, 0, last.length);
        for (int i = 1; i < 3; i++) {
            var one = new Batch(1);
            one.add(0, PROMPT.length + i - 1, token, true);
            float[] row = m.forward(one, cache).row(0);
            System.arraycopy(row, 0, all, i * last.length, last.length);
            token = argmax(row);
        }
        return all;
    }

    private static int argmax(float[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) if (v[i] > v[best]) best = i;
        return best;
    }
}
