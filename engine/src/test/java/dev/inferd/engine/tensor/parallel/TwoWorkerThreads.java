package dev.inferd.engine.tensor.parallel;

import dev.inferd.engine.tensor.parallel.WorkerPool;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class on a shared pool of two threads, the CI machine's size, so that products are split
 * over workers however many cores the test runs on; restores one thread per core afterwards.
 */
public final class TwoWorkerThreads implements BeforeAllCallback, AfterAllCallback {
    @Override
    public void beforeAll(ExtensionContext context) {
        WorkerPool.configure(2);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        WorkerPool.configure(Runtime.getRuntime().availableProcessors());
    }
}
