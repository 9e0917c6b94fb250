package dev.inferd.app;

import dev.inferd.app.models.CatalogEntry;
import dev.inferd.engine.model.synthetic.SyntheticModel;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;

/**
 * The distinct (shape, quantization) pairs of a catalog, each with the models that share it: what the
 * catalog decode table measures once per pair ({@code inferd bench --catalog-decode}).
 *
 * @param pairs   smallest file first, so that a run shows its first rows soon
 * @param without the catalog models that have no synthetic twin, with the reason
 */
record CatalogDecodePairs(List<Pair> pairs, List<Without> without) {

    /** One synthetic file and the catalog models it stands for. */
    record Pair(SyntheticModel.Spec spec, List<String> slugs) {
        /** {@code shape:type}, as {@code --write-synthetic} and {@code synthetic:} take it. */
        String name() {
            return spec.shape().name() + ":" + spec.format().name();
        }

        long fileBytes() {
            return spec.tensorBytes();
        }

        /**
         * Whether any of the comma-separated {@code filters} occurs in the pair's name or in one of its
         * slugs (case-insensitive); a null or blank filter selects every pair.
         */
        boolean selectedBy(String filters) {
            if (filters == null || filters.isBlank()) return true;
            for (String f : filters.toLowerCase(Locale.ROOT).split(",")) {
                String filter = f.strip();
                if (filter.isEmpty()) continue;
                if (name().toLowerCase(Locale.ROOT).contains(filter)) return true;
                if (slugs.stream().anyMatch(s -> s.toLowerCase(Locale.ROOT).contains(filter))) return true;
            }
            return false;
        }
    }

    /** A catalog model left out of the table. */
    record Without(String slug, String reason) {
    }

    static CatalogDecodePairs of(List<CatalogEntry> entries) {
        var bySpec = new LinkedHashMap<SyntheticModel.Spec, List<String>>();
        var without = new ArrayList<Without>();
        for (CatalogEntry entry : entries) {
            SyntheticTwins.of(entry).ifPresentOrElse(
                    spec -> bySpec.computeIfAbsent(spec, s -> new ArrayList<>()).add(entry.slug()),
                    () -> without.add(new Without(entry.slug(), SyntheticTwins.whyNone(entry))));
        }
        List<Pair> pairs = bySpec.entrySet().stream().map(e -> new Pair(e.getKey(), List.copyOf(e.getValue())))
                .sorted(Comparator.comparingLong(Pair::fileBytes).thenComparing(Pair::name))
                .toList();
        return new CatalogDecodePairs(pairs, List.copyOf(without));
    }
}
