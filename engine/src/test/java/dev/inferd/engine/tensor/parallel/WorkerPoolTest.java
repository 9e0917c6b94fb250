package dev.inferd.engine.tensor.parallel;

import dev.inferd.engine.tensor.parallel.WorkerPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WorkerPoolTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void runsEveryTaskExactlyOnceAcrossManyCalls(int threads) {
        try (var pool = new WorkerPool(threads)) {
            for (int call = 0; call < 2000; call++) {
                int tasks = 1 + call % 13;
                var counts = new AtomicIntegerArray(tasks);
                pool.parallelFor(tasks, t -> counts.incrementAndGet(t));
                for (int t = 0; t < tasks; t++) assertThat(counts.get(t)).as("call %d task %d", call, t).isEqualTo(1);
            }
        }
    }

    @Test
    void oneThreadRunsInlineOnTheCaller() {
        try (var pool = new WorkerPool(1)) {
            Thread me = Thread.currentThread();
            var others = new AtomicInteger();
            pool.parallelFor(10, (task, worker) -> {
                if (Thread.currentThread() != me || worker != 0) others.incrementAndGet();
            });
            assertThat(others.get()).isZero();
        }
    }

    @Test
    void twoThreadsUseBothAndDistinctWorkerIndices() throws InterruptedException {
        try (var pool = new WorkerPool(2)) {
            var threadsSeen = ConcurrentHashMap.<Thread>newKeySet();
            var latch = new CountDownLatch(2);
            // each task waits for the other, so both threads must run one at the same time
            pool.parallelFor(2, (task, worker) -> {
                threadsSeen.add(Thread.currentThread());
                latch.countDown();
                try {
                    latch.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                assertThat(worker).isBetween(0, 1);
            });
            assertThat(threadsSeen).hasSize(2);
        }
    }

    @Test
    void nestedCallsRunInline() {
        try (var pool = new WorkerPool(2)) {
            var total = new AtomicInteger();
            pool.parallelFor(4, outer -> pool.parallelFor(3, inner -> total.incrementAndGet()));
            assertThat(total.get()).isEqualTo(12);
        }
    }

    @Test
    void aFailingTaskFailsTheCallAndThePoolKeepsWorking() {
        try (var pool = new WorkerPool(2)) {
            assertThatThrownBy(() -> pool.parallelFor(8, t -> {
                if (t == 5) throw new IllegalStateException("task 5 failed");
            })).hasMessage("task 5 failed");
            var count = new AtomicInteger();
            pool.parallelFor(8, t -> count.incrementAndGet());
            assertThat(count.get()).isEqualTo(8);
        }
    }

    @Test
    void callsFromSeveralThreadsTakeTurns() throws InterruptedException {
        try (var pool = new WorkerPool(2)) {
            var total = new AtomicInteger();
            Thread[] callers = new Thread[3];
            for (int i = 0; i < callers.length; i++) {
                callers[i] = Thread.ofPlatform().start(() -> {
                    for (int k = 0; k < 200; k++) pool.parallelFor(5, t -> total.incrementAndGet());
                });
            }
            for (Thread t : callers) t.join();
            assertThat(total.get()).isEqualTo(3 * 200 * 5);
        }
    }

    @Test
    void rejectsZeroThreads() {
        assertThatThrownBy(() -> new WorkerPool(0)).hasMessageContaining("at least 1");
    }
}
