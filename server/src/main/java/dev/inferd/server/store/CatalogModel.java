package dev.inferd.server.store;

/**
 * One model of the deployment's catalog.
 *
 * @param id the name clients use in {@code model}
 * @param ownedBy the {@code owned_by} of {@code GET /v1/models}
 * @param kind {@code chat}, {@code base} or {@code speech}
 * @param source what is loaded: a catalog slug, or the path of a model file
 * @param created Unix seconds: when the model was added to the deployment
 */
public record CatalogModel(String id, String ownedBy, String kind, String source, long created) {

    public static final String SPEECH = "speech";

    public CatalogModel {
        if (id == null || id.isBlank()) throw new IllegalArgumentException("a model needs an id");
        if (ownedBy == null || ownedBy.isBlank()) throw new IllegalArgumentException("model " + id + " needs an owner");
        if (kind == null || kind.isBlank()) throw new IllegalArgumentException("model " + id + " needs a kind");
        if (source == null || source.isBlank()) throw new IllegalArgumentException("model " + id + " needs a source");
    }

    public boolean isSpeech() {
        return SPEECH.equals(kind);
    }

    public CatalogModel withCreated(long seconds) {
        return new CatalogModel(id, ownedBy, kind, source, seconds);
    }
}
