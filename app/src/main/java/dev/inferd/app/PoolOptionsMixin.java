package dev.inferd.app;

import dev.inferd.app.models.CatalogModelOpener;
import dev.inferd.app.models.ModelLoading;
import dev.inferd.app.models.ModelResolver;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.pool.PoolLimits;
import picocli.CommandLine.Option;

import java.lang.management.ManagementFactory;
import java.time.Duration;

/** How a deployment that loads models on demand ({@code cloud}, {@code worker}) holds them: its memory budget. */
final class PoolOptionsMixin {
    /** With the default KV cache of an eighth of the heap each, this many models' caches fill the heap at most. */
    static final int DEFAULT_MAX_LOADED = 8;

    @Option(names = "--max-loaded-models", defaultValue = "" + DEFAULT_MAX_LOADED, paramLabel = "N",
            description = "models loaded at once; the least recently used idle one is unloaded for another; 0 for no "
                    + "limit but --memory-budget (default: ${DEFAULT-VALUE}, so that the default KV caches fit the heap)")
    int maxLoadedModels;

    @Option(names = "--memory-budget", defaultValue = "0", paramLabel = "SIZE", converter = ByteSize.Converter.class,
            description = "memory all loaded models may take together (weights, their copies, KV caches), e.g. 16g "
                    + "(default: three quarters of the machine's memory)")
    long memoryBudget;

    @Option(names = "--load-wait", defaultValue = "10s", paramLabel = "DURATION", converter = Durations.Converter.class,
            description = "how long a request waits for its model to load before a 503 with Retry-After, e.g. 10s, 500ms, 2m (default: ${DEFAULT-VALUE})")
    Duration loadWait;

    String problem() {
        return maxLoadedModels < 0 ? "--max-loaded-models must be 0 or more" : null;
    }

    /** The memory budget and the load wait of the deployment's model pool. */
    PoolLimits poolLimits() {
        PoolLimits limits = PoolLimits.defaults(physicalMemory()).withMaxLoaded(maxLoadedModels).withLoadWait(loadWait);
        return memoryBudget > 0 ? limits.withMemoryBudget(memoryBudget) : limits;
    }

    /** The catalog of a deployment that loads its models on demand within these limits. */
    CloudDeployment.Catalog catalog(ModelOptionsMixin models, ServerOptionsMixin server, StoreOptions store) {
        var opener = new CatalogModelOpener(ModelResolver.fromEnvironment(), pooledLoading(models.loading(server)), models.offline,
                new ModelEvents(System.out));
        return new CloudDeployment.Catalog(opener, poolLimits(), store.configuredModels());
    }

    /** The KV caches live in the heap: models loaded side by side must not each take the engine's default share of it. */
    static ModelLoading pooledLoading(ModelLoading given) {
        return given.kvMemory() > 0 ? given : given.withKvMemory(Runtime.getRuntime().maxMemory() / DEFAULT_MAX_LOADED);
    }

    /** The machine's RAM (the JVM's heap ceiling where the platform does not say). */
    static long physicalMemory() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getTotalMemorySize() : Runtime.getRuntime().maxMemory();
    }
}
