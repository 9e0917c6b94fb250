package dev.inferd.app;

import dev.inferd.app.models.ModelLoading;
import picocli.CommandLine.Option;

/** How models are loaded, the same for every command that loads them. */
final class ModelOptionsMixin {

    @Option(names = "--ctx", defaultValue = "0", paramLabel = "N",
            description = "context length in tokens (default: the model's trained context, as far as --kv-memory holds one "
                    + "sequence of it; printed at start-up)")
    int contextLength;

    @Option(names = "--kv-memory", defaultValue = "0", paramLabel = "SIZE", converter = ByteSize.Converter.class,
            description = "memory for the KV cache per model, e.g. 2g or 512m (default: serve: enough for --parallel "
                    + "full contexts, at most a quarter of RAM; cloud and worker: an eighth of the Java heap)")
    long kvMemory;

    @Option(names = "--offline", description = "never download: use cached catalog models or files only")
    boolean offline;

    @Option(names = "--no-copy-cache", description = "build the copies of Q8_0, Q4_0, Q4_K, Q5_K and Q6_K weights for generated "
            + "tokens at every start, instead of caching them in $INFERD_HOME/copies")
    boolean noCopyCache;

    String problem() {
        return contextLength < 0 ? "--ctx must be 0 or more" : null;
    }

    /** The loading factory for these options and the server's compute options. */
    ModelLoading loading(ServerOptionsMixin server) {
        return new ModelLoading(contextLength, kvMemory, server.threads, server.parallel, server.maxQueued,
                noCopyCache ? null : ModelEvents.copyCacheDirectory());
    }
}
