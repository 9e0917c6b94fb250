package dev.inferd.engine.chat.jinja;

/**
 * The value of a missing variable, attribute or item, like Jinja's default {@code Undefined}: falsy,
 * renders as the empty string, iterates as empty, has length 0, and its attributes and items are
 * undefined too (lenient, as Hugging Face's templates expect). Arithmetic, ordering and calls on it
 * fail with {@link #message()}.
 */
record Undefined(String description) {

    String message() {
        return description + " is undefined";
    }

    static Undefined named(String name) {
        return new Undefined("'" + name + "'");
    }
}
