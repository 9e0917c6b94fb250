package dev.inferd.app.models;

import java.util.List;

/** A {@code --model} or {@code pull} argument that is neither an existing file nor a catalog slug. */
public final class UnknownModelException extends ModelException {
    private final String slug;
    private final List<String> closeMatches;

    public UnknownModelException(String slug, List<String> closeMatches) {
        super(message(slug, closeMatches));
        this.slug = slug;
        this.closeMatches = List.copyOf(closeMatches);
    }

    public String slug() {
        return slug;
    }

    public List<String> closeMatches() {
        return closeMatches;
    }

    private static String message(String slug, List<String> closeMatches) {
        String hint = closeMatches.isEmpty()
                ? ""
                : " Did you mean " + String.join(", ", closeMatches) + "?";
        return "unknown model '" + slug + "': it is not a file and not in the catalog." + hint
                + " Run `./inferd models` to list the catalog, or pass a path to a .gguf file.";
    }
}
