package dev.inferd.server.cloud.catalog;

import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ModelObject;
import dev.inferd.server.pool.LoadedModel;
import dev.inferd.server.pool.ModelSource;
import dev.inferd.server.store.CatalogModel;
import dev.inferd.server.store.CatalogStore;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.StoreChanges;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.SequencedMap;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The models a hosted deployment lists and loads on demand, kept in its database so that they outlast a restart.
 * A new database starts with the built-in catalog; the operator adds and removes models at run time (the admin
 * API, or a config file's {@code models} applied on reload), and the list follows at once. Reads come from a copy
 * in memory, so listing costs no query; on PostgreSQL that copy is read again whenever any process changes the
 * catalog ({@link StoreChanges}), so every gateway and worker lists the same models within a second.
 */
public final class DeploymentCatalog implements ModelSource, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(DeploymentCatalog.class.getName());

    private final CatalogStore store;
    private final ModelOpener opener;
    private final Clock clock;
    private volatile SequencedMap<String, CatalogModel> models = new LinkedHashMap<>();
    private volatile Consumer<String> onRemoved = id -> { };
    private final StoreChanges.Subscription changes;

    /**
     * Opens the catalog of {@code db}, filling it with the built-in catalog when it never held a model, then
     * making it {@code configured} when that is not null.
     */
    public DeploymentCatalog(Database db, ModelOpener opener, Clock clock, List<ModelSpec> configured) {
        this.store = new CatalogStore(db);
        this.opener = opener;
        this.clock = clock;
        synchronized (this) {
            if (store.neverFilled()) store.addAll(opener.builtIn(nowSeconds()));
            refresh();
            if (configured != null) apply(configured);
        }
        this.changes = db.changes().subscribe(StoreChanges.Topic.CATALOG, this::followChange);
    }

    /** Another process (or this one) changed the catalog: read it again, unloading what went. */
    private void followChange() {
        List<String> gone = reload(null);
        if (!gone.isEmpty()) LOG.log(Level.INFO, "models taken off the catalog elsewhere: " + gone);
    }

    /** Stops following other processes' changes. */
    @Override
    public void close() {
        changes.close();
    }

    /** Tells {@code listener} the id of every model taken off the list (to unload it). */
    public void onRemoved(Consumer<String> listener) {
        this.onRemoved = listener;
    }

    /** The listed models, in listing order. */
    public List<CatalogModel> models() {
        return List.copyOf(models.values());
    }

    public Optional<CatalogModel> model(String id) {
        return Optional.ofNullable(models.get(id));
    }

    /**
     * Adds a model to the list.
     *
     * @throws ApiError 409 when the id is listed already
     * @throws IllegalArgumentException when it cannot be served
     */
    public synchronized CatalogModel add(ModelSpec spec) {
        if (models.containsKey(spec.id())) {
            throw new ApiError(409, ApiError.INVALID_REQUEST, "The model `" + spec.id() + "` is listed already; remove it first "
                    + "to change it.", "id", "model_exists");
        }
        CatalogModel model = opener.describe(spec, nowSeconds());
        store.addAll(List.of(model));
        refresh();
        LOG.log(Level.INFO, "model " + model.id() + " added to the catalog");
        return model;
    }

    /**
     * Takes a model off the list; it is unloaded as soon as its requests in flight are done.
     *
     * @throws NoSuchElementException when it is not listed
     */
    public CatalogModel remove(String id) {
        CatalogModel removed;
        synchronized (this) {
            removed = models.get(id);
            if (removed == null || !store.remove(id, clock.millis())) {
                throw new NoSuchElementException("The model `" + id + "` is not in the catalog.");
            }
            refresh();
        }
        LOG.log(Level.INFO, "model " + id + " removed from the catalog");
        onRemoved.accept(id);
        return removed;
    }

    /**
     * Reads the list from the database again (other gateways on the same database may have changed it), then
     * makes it {@code configured} when that is not null.
     *
     * @return the ids taken off the list
     */
    public List<String> reload(List<ModelSpec> configured) {
        List<String> gone = new ArrayList<>();
        synchronized (this) {
            Set<String> before = new LinkedHashSet<>(models.keySet());
            refresh();
            if (configured != null) apply(configured);
            before.removeAll(models.keySet());
            gone.addAll(before);
        }
        gone.forEach(onRemoved);
        return gone;
    }

    /** Makes the list hold exactly {@code configured}, in its order after the models kept. */
    private void apply(List<ModelSpec> configured) {
        Map<String, ModelSpec> wanted = new LinkedHashMap<>();
        for (ModelSpec spec : configured) {
            if (wanted.putIfAbsent(spec.id(), spec) != null) throw new IllegalArgumentException("models lists " + spec.id() + " twice");
        }
        long now = nowSeconds();
        List<CatalogModel> added = new ArrayList<>();
        for (ModelSpec spec : wanted.values()) {
            CatalogModel described = opener.describe(spec, now);
            CatalogModel listed = models.get(spec.id());
            if (listed == null || !listed.source().equals(described.source()) || !listed.ownedBy().equals(described.ownedBy())) {
                added.add(listed == null ? described : described.withCreated(listed.created()));
            }
        }
        for (String id : models.keySet()) {
            if (!wanted.containsKey(id)) store.remove(id, clock.millis());
        }
        if (!added.isEmpty()) store.addAll(added);
        refresh();
    }

    private void refresh() {
        SequencedMap<String, CatalogModel> fresh = new LinkedHashMap<>();
        store.list().forEach(m -> fresh.put(m.id(), m));
        models = fresh;
    }

    private long nowSeconds() {
        return clock.millis() / 1000;
    }

    @Override
    public List<ModelObject> list() {
        return models.values().stream().map(DeploymentCatalog::object).toList();
    }

    @Override
    public Optional<ModelObject> find(String id) {
        return model(id).map(DeploymentCatalog::object);
    }

    @Override
    public boolean isSpeech(String id) {
        return model(id).map(CatalogModel::isSpeech).orElse(false);
    }

    @Override
    public long estimateBytes(String id) {
        return opener.estimateBytes(require(id));
    }

    @Override
    public LoadedModel load(String id) throws Exception {
        return opener.open(require(id));
    }

    private CatalogModel require(String id) {
        return model(id).orElseThrow(() -> ApiError.modelNotFound(id));
    }

    private static ModelObject object(CatalogModel m) {
        return new ModelObject(m.id(), "model", m.created(), m.ownedBy());
    }
}
