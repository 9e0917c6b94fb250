package dev.inferd.app;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.inferd.app.models.ByteSizes;
import dev.inferd.app.models.Catalog;
import dev.inferd.app.models.CatalogEntry;
import dev.inferd.app.models.ModelException;
import dev.inferd.app.models.ModelStore;
import dev.inferd.app.models.ModelsConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;

/** {@code inferd models [--json]}: the catalog, and which of its models are downloaded. */
@Command(name = "models", mixinStandardHelpOptions = true,
        header = "List the model catalog and what this build can serve.",
        description = {"List the model catalog: slug, whether it is downloaded, size, architecture, quantization, kind,",
                "and whether this build can serve it (architecture, tokenizer and tensor types supported).",
                "Own entries can be added in $INFERD_HOME/catalog.json (same format as the built-in catalog)."})
public final class ModelsCommand implements Callable<Integer> {
    @Option(names = "--json", description = "print a JSON array for scripts")
    boolean json;

    private final Function<String, String> env;
    private final PrintStream out;
    private final PrintStream err;

    public ModelsCommand() {
        this(System::getenv, System.out, System.err);
    }

    ModelsCommand(Function<String, String> env, PrintStream out, PrintStream err) {
        this.env = env;
        this.out = out;
        this.err = err;
    }

    /** One line of the listing; the JSON field names are those of the catalog where they overlap. */
    record Row(
            @JsonProperty("id") String id,
            @JsonProperty("owned_by") String ownedBy,
            @JsonProperty("kind") String kind,
            @JsonProperty("architecture") String architecture,
            @JsonProperty("quant") String quant,
            @JsonProperty("size_bytes") Long sizeBytes,
            @JsonProperty("context_length") Integer contextLength,
            @JsonProperty("license") String license,
            @JsonProperty("cached") boolean cached,
            @JsonProperty("path") String path,
            @JsonProperty("hf_repo") String hfRepo,
            @JsonProperty("revision") String revision,
            @JsonProperty("file") String file,
            @JsonProperty("tokenizer") String tokenizer,
            @JsonProperty("servable") boolean servable,
            @JsonProperty("unservable_reason") String unservableReason) {

        static Row of(CatalogEntry e, ModelStore store) {
            long size = store.sizeOf(e);
            var servability = e.servability();
            return new Row(e.slug(), e.ownedBy(), e.kind(), e.architecture(), e.quant(), size < 0 ? null : size,
                    e.contextLength(), e.license(), store.cached(e).isPresent(), store.fileFor(e).toString(),
                    e.hfRepo(), e.revision(), e.file(), e.tokenizer(), servability.servable(),
                    servability.servable() ? null : servability.reason());
        }
    }

    @Override
    public Integer call() {
        try {
            var config = ModelsConfig.fromEnvironment(env);
            var store = new ModelStore(config.modelsDir());
            List<Row> rows = Catalog.load(config.userCatalog()).entries().stream().map(e -> Row.of(e, store)).toList();
            if (json) {
                out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(rows));
            } else {
                printTable(rows);
                out.println();
                long servable = rows.stream().filter(Row::servable).count();
                out.println(servable + " of " + rows.size() + " models can be served by this build.");
                rows.stream().filter(r -> !r.servable()).forEach(r -> out.println("  " + r.id() + ": " + r.unservableReason()));
                out.println("Downloaded models are in " + store.modelsDir() + "; `./inferd pull <slug>` downloads one.");
            }
            return 0;
        } catch (ModelException e) {
            err.println("inferd models: " + e.getMessage());
            return 1;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the model listing did not serialize", e);
        }
    }

    private void printTable(List<Row> rows) {
        String[] header = {"MODEL", "CACHED", "SIZE", "ARCH", "QUANT", "KIND", "SERVABLE"};
        List<String[]> cells = rows.stream().map(r -> new String[] {
                r.id(), r.cached() ? "yes" : "-", r.sizeBytes() == null ? "?" : ByteSizes.human(r.sizeBytes()),
                r.architecture(), r.quant(), r.kind(), r.servable() ? "yes" : "no"}).toList();
        int[] width = new int[header.length];
        for (int c = 0; c < header.length; c++) {
            width[c] = header[c].length();
            for (String[] row : cells) {
                width[c] = Math.max(width[c], row[c].length());
            }
        }
        out.println(format(header, width));
        cells.forEach(row -> out.println(format(row, width)));
    }

    private static String format(String[] row, int[] width) {
        var sb = new StringBuilder();
        for (int c = 0; c < row.length; c++) {
            boolean last = c == row.length - 1;
            // Sizes read best right-aligned.
            String cell = c == 2 ? " ".repeat(width[c] - row[c].length()) + row[c] : row[c];
            sb.append(last ? cell : cell + " ".repeat(width[c] - cell.length() + 2));
        }
        return sb.toString().stripTrailing();
    }
}
