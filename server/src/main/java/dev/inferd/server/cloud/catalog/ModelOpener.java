package dev.inferd.server.cloud.catalog;

import dev.inferd.server.pool.LoadedModel;
import dev.inferd.server.store.CatalogModel;

import java.util.List;

/** What the deployment's catalog needs from the model files: checks, sizes and loading (the CLI's catalog and downloader). */
public interface ModelOpener {

    /** The catalog a new deployment lists, each entry created at {@code nowSeconds}. */
    List<CatalogModel> builtIn(long nowSeconds);

    /**
     * The entry for {@code spec}, checked as {@code pull} checks a model before downloading it.
     *
     * @throws IllegalArgumentException with a message for the operator when it cannot be served
     */
    CatalogModel describe(ModelSpec spec, long nowSeconds);

    /** The memory the model takes once loaded, as far as known before it is loaded. */
    long estimateBytes(CatalogModel model);

    /** Loads the model, downloading it first when it is not on disk. */
    LoadedModel open(CatalogModel model) throws Exception;
}
