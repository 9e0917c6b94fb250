package dev.inferd.app.models;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The models {@code inferd pull} knows by slug: the catalog built into the jar, plus the user's own
 * entries from {@code $INFERD_HOME/catalog.json} (same format), which add models or replace a
 * built-in one with the same slug. Loaded anew each time, so edits need no rebuild.
 */
public final class Catalog {
    static final String BUILT_IN_RESOURCE = "/dev/inferd/app/models/catalog.json";
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    private final Map<String, CatalogEntry> bySlug;

    private Catalog(Map<String, CatalogEntry> bySlug) {
        this.bySlug = bySlug;
    }

    public static Catalog of(Collection<CatalogEntry> entries) {
        return new Catalog(index(entries, "the given entries"));
    }

    /** The catalog built into the jar. */
    public static Catalog builtIn() {
        try (InputStream in = Catalog.class.getResourceAsStream(BUILT_IN_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the built-in model catalog " + BUILT_IN_RESOURCE + " is missing from the jar");
            }
            return of(parse(in, "the built-in catalog"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The built-in catalog with the entries of {@code userCatalog} laid over it, when that file exists. */
    public static Catalog load(Path userCatalog) {
        Catalog builtIn = builtIn();
        if (!Files.exists(userCatalog)) {
            return builtIn;
        }
        try (InputStream in = Files.newInputStream(userCatalog)) {
            return builtIn.overriddenBy(parse(in, userCatalog.toString()));
        } catch (IOException e) {
            throw new ModelException("cannot read the model catalog " + userCatalog + ": " + e.getMessage(), e);
        }
    }

    /** This catalog with {@code entries} added, an entry replacing any of the same slug. */
    public Catalog overriddenBy(Collection<CatalogEntry> entries) {
        var merged = new LinkedHashMap<>(bySlug);
        index(entries, "the user catalog").forEach(merged::put);
        return new Catalog(merged);
    }

    static List<CatalogEntry> parse(InputStream in, String source) throws IOException {
        try {
            List<CatalogEntry> entries = JSON.readValue(in, new TypeReference<List<CatalogEntry>>() { });
            if (entries == null || entries.contains(null)) {
                throw new ModelException("the model catalog " + source + " must be a JSON array of model objects");
            }
            return entries;
        } catch (JacksonException e) {
            // A bad entry's own message (from CatalogEntry's checks) is the useful part.
            Throwable cause = e.getCause() instanceof IllegalArgumentException iae ? iae : e;
            String where = e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ")";
            throw new ModelException("the model catalog " + source + " is not valid" + where + ": "
                    + (cause == e ? e.getOriginalMessage() : cause.getMessage()), e);
        }
    }

    public List<CatalogEntry> entries() {
        return List.copyOf(bySlug.values());
    }

    public Optional<CatalogEntry> find(String slug) {
        return Optional.ofNullable(bySlug.get(slug));
    }

    /** The entry for {@code slug}, or an {@link UnknownModelException} that suggests close slugs. */
    public CatalogEntry require(String slug) {
        CatalogEntry entry = bySlug.get(slug);
        if (entry == null) {
            throw new UnknownModelException(slug, CloseMatches.among(slug, bySlug.keySet(), 5));
        }
        return entry;
    }

    private static Map<String, CatalogEntry> index(Collection<CatalogEntry> entries, String source) {
        var map = new LinkedHashMap<String, CatalogEntry>();
        for (CatalogEntry e : entries) {
            if (map.putIfAbsent(e.slug(), e) != null) {
                throw new ModelException(source + " lists the model '" + e.slug() + "' twice");
            }
        }
        return map;
    }
}
