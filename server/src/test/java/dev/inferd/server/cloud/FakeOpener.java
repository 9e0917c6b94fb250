package dev.inferd.server.cloud;

import dev.inferd.server.cloud.catalog.ModelOpener;
import dev.inferd.server.cloud.catalog.ModelSpec;
import dev.inferd.server.pool.LoadedModel;
import dev.inferd.server.store.CatalogModel;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * Models that load as {@link EchoModel}s: a built-in catalog of 42 ({@code model-01}..{@code model-42}, owned by
 * {@code org-1}..{@code org-3}), each of {@link #BYTES} unless {@link #sizes} says otherwise; a load can be held
 * back with {@link #gate}.
 */
final class FakeOpener implements ModelOpener {

    static final long BYTES = 1000;

    final Map<String, Long> sizes = new ConcurrentHashMap<>();
    final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();
    final List<String> loads = new CopyOnWriteArrayList<>();
    final Map<String, EchoModel> opened = new ConcurrentHashMap<>();
    /** Models that answer slowly and at length (a stream to hold open). */
    final java.util.Set<String> slow = ConcurrentHashMap.newKeySet();

    static String slug(int i) {
        return "model-%02d".formatted(i);
    }

    /** Holds the next loads of {@code id} until the latch returned is counted down. */
    CountDownLatch gate(String id) {
        var latch = new CountDownLatch(1);
        gates.put(id, latch);
        return latch;
    }

    @Override
    public List<CatalogModel> builtIn(long nowSeconds) {
        List<CatalogModel> out = new ArrayList<>();
        for (int i = 1; i <= 42; i++) out.add(new CatalogModel(slug(i), "org-" + (1 + i % 3), "chat", slug(i), nowSeconds));
        return out;
    }

    @Override
    public CatalogModel describe(ModelSpec spec, long nowSeconds) {
        if (spec.file() != null) {
            String kind = spec.file().endsWith(".bin") ? CatalogModel.SPEECH : "chat";
            return new CatalogModel(spec.id(), spec.ownedBy() == null ? "user" : spec.ownedBy(), kind, spec.file(), nowSeconds);
        }
        if (!spec.id().startsWith("model-") && !spec.id().startsWith("extra-")) {
            throw new IllegalArgumentException("unknown model '" + spec.id() + "'");
        }
        String owner = spec.id().startsWith("model-") ? "org-" + (1 + Integer.parseInt(spec.id().substring(6)) % 3) : "extra-org";
        return new CatalogModel(spec.id(), spec.ownedBy() == null ? owner : spec.ownedBy(), "chat", spec.id(), nowSeconds);
    }

    @Override
    public long estimateBytes(CatalogModel model) {
        return sizes.getOrDefault(model.id(), BYTES);
    }

    @Override
    public LoadedModel open(CatalogModel model) throws Exception {
        loads.add(model.id());
        CountDownLatch gate = gates.get(model.id());
        if (gate != null) gate.await();
        if (model.isSpeech()) {
            return new LoadedModel.Speech(dev.inferd.speech.whisper.WhisperModel.open(java.nio.file.Path.of(model.source())),
                    estimateBytes(model));
        }
        var echo = slow.contains(model.id()) ? new EchoModel(model.id(), 20) : new EchoModel(model.id());
        opened.put(model.id(), echo);
        return new LoadedModel.Text(echo, null, estimateBytes(model));
    }
}
