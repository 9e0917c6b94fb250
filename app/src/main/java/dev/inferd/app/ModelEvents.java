package dev.inferd.app;

import dev.inferd.app.models.ModelsConfig;
import dev.inferd.engine.generate.KVMemory;
import dev.inferd.engine.generate.ModelDescription;
import dev.inferd.engine.generate.ModelEvent;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;

/** Prints a served model's life-cycle events ({@link ModelEvent}) as the commands' one-line messages. */
final class ModelEvents implements ModelEvent.Listener {

    private final PrintStream out;

    ModelEvents(PrintStream out) {
        this.out = out;
    }

    /** Where the copies of weights for generated tokens are cached: {@code $INFERD_HOME/copies}. */
    static Path copyCacheDirectory() {
        return ModelsConfig.fromEnvironment(System::getenv).copiesDir();
    }

    @Override
    public void on(ModelEvent event) {
        switch (event) {
            case ModelEvent.Loaded l -> {
                ModelDescription d = l.description();
                out.printf(Locale.ROOT, "inferd: model %s: %s, %s parameters, %s, %s, %s, loaded in %d ms%s%n",
                        d.id(), d.architecture(), ServeCommand.humanCount(d.parameterCount()), d.quantization(),
                        context(d.contextLength(), l.trainedContextLength(), l.kvMemory()), kvCache(l.kvMemory()),
                        l.millis(), copies(l));
            }
            case ModelEvent.CopiesSaved s -> out.printf(Locale.ROOT,
                    "inferd: model %s: copies for generated tokens saved to %s in %d ms; later starts map them%n",
                    s.model(), s.file(), s.millis());
            case ModelEvent.CopiesNotSaved n -> out.printf(Locale.ROOT,
                    "inferd: model %s: cannot cache its copies for generated tokens in %s (%s); every start builds them%n",
                    n.model(), n.directory(), n.reason());
            case ModelEvent.CopiesMovedIntoMemory m -> out.printf(Locale.ROOT,
                    "inferd: model %s: copies for generated tokens moved into memory in %d ms%n", m.model(), m.millis());
            case ModelEvent.WeightsMovedIntoMemory w -> out.printf(Locale.ROOT,
                    "inferd: model %s: %d MB of weights read in place moved into memory in %d ms%n",
                    w.model(), w.bytes() >> 20, w.millis());
            case ModelEvent.WarmedUp w -> out.printf(Locale.ROOT,
                    "inferd: model %s: kernels compiled by a warm-up in %d ms (%d rounds of the product kernels in %d ms, "
                            + "%d forward passes in %d ms)%n",
                    w.model(), w.millis(), w.kernelRounds(), w.kernelMillis(), w.passes(), w.millis() - w.kernelMillis());
        }
    }

    /**
     * The served context beside the trained one, and what decided it: the KV memory a position takes and the
     * budget it was chosen within.
     */
    static String context(int context, int trained, KVMemory kv) {
        String budget = String.format(Locale.ROOT, "KV %s a position, budget %s", bytes(kv.bytesPerPosition()), bytes(kv.budget()));
        if (context < trained) {
            return String.format(Locale.ROOT, "context %d of the trained %d (%s: --kv-memory or --ctx for more)",
                    context, trained, budget);
        }
        return String.format(Locale.ROOT, "context %d (trained %d; %s)", context, trained, budget);
    }

    private static String bytes(long n) {
        if (n >= 1L << 30) return String.format(Locale.ROOT, "%.1f GiB", n / (double) (1L << 30));
        if (n >= 1L << 20) return (n >> 20) + " MiB";
        if (n >= 1L << 10) return (n >> 10) + " KiB";
        return n + " B";
    }

    /** The KV cache's memory, and the sliding-window layers' share of it where some layers slide. */
    private static String kvCache(KVMemory kv) {
        String memory = String.format(Locale.ROOT, "KV cache %d MB for %d positions", kv.bytes() >> 20, kv.positions());
        if (kv.slidingWindowBytes() == 0) return memory;
        return memory + String.format(Locale.ROOT, " (%d MB of it the sliding-window layers' windows)",
                kv.slidingWindowBytes() >> 20);
    }

    /** How a load came by its copies: empty where it has no cache or nothing to copy. */
    private static String copies(ModelEvent.Loaded l) {
        if (l.copyFile() == null || l.copyBytes() == 0) return "";
        return l.copiesMapped()
                ? String.format(Locale.ROOT, " (%d MB of copies for generated tokens mapped from %s)", l.copyBytes() >> 20, l.copyFile())
                : String.format(Locale.ROOT, " (%d MB of copies for generated tokens built)", l.copyBytes() >> 20);
    }
}
