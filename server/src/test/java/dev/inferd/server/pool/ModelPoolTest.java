package dev.inferd.server.pool;

import dev.inferd.engine.generate.ModelDescription;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ModelObject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link ModelPool}'s budget, eviction order and failures, with models that load at once. */
class ModelPoolTest {

    /** Models a..e of 1000 bytes each (or what {@link #sizes} says), loaded as generators that record their closing. */
    static final class Source implements ModelSource {
        final Map<String, Long> sizes = new ConcurrentHashMap<>();
        final Set<String> failing = ConcurrentHashMap.newKeySet();
        final List<String> closed = new CopyOnWriteArrayList<>();
        final AtomicInteger loads = new AtomicInteger();

        @Override
        public List<ModelObject> list() {
            return List.of("a", "b", "c", "d", "e").stream().map(id -> new ModelObject(id, "model", 1, "test")).toList();
        }

        @Override
        public Optional<ModelObject> find(String id) {
            return list().stream().filter(m -> m.id().equals(id)).findFirst();
        }

        @Override
        public boolean isSpeech(String id) {
            return false;
        }

        @Override
        public long estimateBytes(String id) {
            return sizes.getOrDefault(id, 1000L);
        }

        @Override
        public LoadedModel load(String id) {
            loads.incrementAndGet();
            if (failing.contains(id)) throw new IllegalStateException("the file of " + id + " is truncated");
            TextGenerator generator = new TextGenerator() {
                @Override
                public ModelDescription description() {
                    return new ModelDescription(id, "test", 1, "llama", 1, "F32", 64);
                }

                @Override
                public int[] chatPrompt(List<dev.inferd.engine.generate.ChatMessage> messages) {
                    return new int[1];
                }

                @Override
                public int[] textPrompt(String prompt) {
                    return new int[1];
                }

                @Override
                public dev.inferd.engine.generate.Generation submit(dev.inferd.engine.generate.GenerationRequest request) {
                    throw new UnsupportedOperationException();
                }

                @Override
                public void close() {
                    closed.add(id);
                }
            };
            return new LoadedModel.Text(generator, null, estimateBytes(id));
        }
    }

    private final Source source = new Source();

    private ModelPool pool(int maxLoaded, long budget) {
        return new ModelPool(source, new PoolLimits(maxLoaded, budget, Duration.ofSeconds(10), 2, Duration.ofMinutes(1)));
    }

    private static void use(ModelPool pool, String id) throws InterruptedException {
        try (var use = pool.use(id)) {
            assertThat(use.model()).isInstanceOf(LoadedModel.Text.class);
        }
    }

    @Test
    void aByteBudgetUnloadsTheLeastRecentlyUsedIdleModelsFirst() throws InterruptedException {
        var pool = pool(0, 2500);
        use(pool, "a");
        use(pool, "b");
        use(pool, "a"); // b is now the least recently used
        use(pool, "c");
        assertThat(source.closed).containsExactly("b");
        assertThat(pool.loaded()).containsExactly("a", "c");
        assertThat(pool.heldBytes()).isEqualTo(2000);

        source.sizes.put("d", 2000L);
        use(pool, "d");
        assertThat(source.closed).containsExactly("b", "a", "c");
        assertThat(pool.loaded()).containsExactly("d");
    }

    @Test
    void aModelInUseIsNeverUnloadedAndAnotherWaitsForRoom() throws InterruptedException {
        var pool = pool(1, 1L << 40);
        var held = pool.use("a");
        assertThatThrownBy(() -> pool.use("b")).isInstanceOfSatisfying(ApiError.class, e -> {
            assertThat(e.status()).isEqualTo(503);
            assertThat(e.reason()).isEqualTo("model_capacity");
            assertThat(e.retryAfterSeconds()).isEqualTo(2);
        });
        assertThat(source.closed).isEmpty();
        held.close();
        held.close(); // a second close gives nothing back twice
        use(pool, "b");
        assertThat(source.closed).containsExactly("a");
        assertThat(pool.inFlight("b")).isZero();
    }

    @Test
    void aModelTakenOffTheListIsUnloadedWhenItsLastRequestEnds() throws InterruptedException {
        var pool = pool(0, 1L << 40);
        var held = pool.use("a");
        pool.unload("a");
        assertThat(source.closed).isEmpty();
        held.close();
        assertThat(source.closed).containsExactly("a");
        assertThat(pool.heldBytes()).isZero();
    }

    @Test
    void aModelLargerThanTheBudgetIsRefusedWithoutLoadingAndAFailedLoadIsReported() {
        var pool = pool(0, 5000);
        source.sizes.put("a", 6000L);
        assertThatThrownBy(() -> pool.use("a")).isInstanceOfSatisfying(ApiError.class, e -> {
            assertThat(e.reason()).isEqualTo("model_too_large");
            assertThat(e.shouldRetry()).isFalse();
            assertThat(e.getMessage()).contains("6000 bytes").contains("5000 bytes");
        });
        assertThat(source.loads).hasValue(0);

        source.failing.add("b");
        assertThatThrownBy(() -> pool.use("b")).isInstanceOfSatisfying(ApiError.class,
                e -> assertThat(e.getMessage()).contains("failed to load: the file of b is truncated"));
        assertThatThrownBy(() -> pool.use("b")).hasMessageContaining("truncated");
        assertThat(source.loads).as("a failure is held, not retried at once").hasValue(1);
        assertThat(pool.heldBytes()).isZero();
        assertThatThrownBy(() -> pool.use("zz")).isInstanceOfSatisfying(ApiError.class, e -> assertThat(e.status()).isEqualTo(404));
    }
}
