package io.backpressure.langchain4j;

import java.lang.reflect.Field;
import java.util.OptionalInt;

/**
 * The retries a LangChain4j model makes on its own, and the check that a gated model makes none.
 *
 * <p>LangChain4j's model builders take {@code maxRetries} (default 2 for OpenAI's): a call that
 * fails, a 429 included, is sent again on the calling thread after a short sleep, inside the one
 * call the gate admitted. The provider then sees up to three requests for one admission, and the
 * retries land on the window that just refused the first one. The gate replaces those retries:
 * admitted once, released with what the provider said, retried by the caller through the gate (the
 * langchain4j README). The builders keep the value in a private field named {@code maxRetries} and
 * expose no getter, so it is read reflectively; a model without such a field (or one it cannot
 * read) is taken as it is. Stateless.
 */
final class ModelRetries {
  private static final String FIELD = "maxRetries";

  private ModelRetries() {}

  /** How many times {@code model} retries a failed call on its own, when it can be read. */
  static OptionalInt of(Object model) {
    for (Class<?> type = model.getClass();
        type != null && type != Object.class;
        type = type.getSuperclass()) {
      try {
        Field field = type.getDeclaredField(FIELD);
        if (field.getType() != int.class && field.getType() != Integer.class) {
          return OptionalInt.empty();
        }
        field.setAccessible(true);
        Object value = field.get(model);
        return value == null ? OptionalInt.empty() : OptionalInt.of(((Number) value).intValue());
      } catch (NoSuchFieldException e) {
        // look in the superclass
      } catch (ReflectiveOperationException | RuntimeException e) {
        return OptionalInt.empty(); // not readable (a module that does not open it): not checked
      }
    }
    return OptionalInt.empty();
  }

  /**
   * Throws when {@code model} retries failed calls on its own.
   *
   * @throws IllegalArgumentException naming the model's class and its {@code maxRetries}
   */
  static void requireNone(Object model) {
    OptionalInt retries = of(model);
    if (retries.isPresent() && retries.getAsInt() > 0) {
      throw new IllegalArgumentException(
          "the wrapped "
              + model.getClass().getSimpleName()
              + " retries failed "
              + "calls on its own (maxRetries="
              + retries.getAsInt()
              + "): each retry is a provider call the gate did "
              + "not admit, sent into the window that just answered 429. Build it with .maxRetries(0) (Spring Boot: "
              + "the model's max-retries property = 0); retry through the gated model instead");
    }
  }
}
