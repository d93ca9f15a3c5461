package io.backpressure.spring.boot;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Every {@code backpressure.*} key the application sets must be one that {@link
 * BackpressureProperties} binds: a misspelt key ({@code safe-windw}, {@code priorites.P3}) would
 * otherwise be ignored, and the gate would run with the default it meant to change. The valid keys
 * are read from the properties classes themselves (their JavaBean properties, in Spring Boot's
 * relaxed forms: {@code safe-window}, {@code safeWindow} and {@code SAFE_WINDOW} are one key), so a
 * property added there is known here without a list to update.
 *
 * <p>Operating-system environment variables are not checked: other programs name their settings
 * {@code BACKPRESSURE_*} too (the command-line launcher's {@code BACKPRESSURE_JAVA_OPTS}), so an
 * unknown one is no typo of this starter's. Stateless.
 */
final class KnownProperties {
  private static final ConfigurationPropertyName ROOT =
      ConfigurationPropertyName.of("backpressure");

  private KnownProperties() {}

  /**
   * Checks every {@code backpressure.*} key of {@code environment}'s property sources but the
   * operating-system environment.
   *
   * @throws UnknownPropertiesException naming each unknown key, where it was set, and its nearest
   *     valid spelling
   */
  static void check(Environment environment) {
    Map<String, String> problems = new TreeMap<>();
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      if (!(source instanceof IterableConfigurationPropertySource iterable)
          || source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource) {
        continue;
      }
      iterable.filter(ROOT::isAncestorOf).stream()
          .forEach(
              name -> {
                String problem = problem(name);
                if (problem != null) {
                  ConfigurationProperty property = source.getConfigurationProperty(name);
                  String origin =
                      property == null || property.getOrigin() == null
                          ? ""
                          : " (set by " + property.getOrigin() + ")";
                  problems.putIfAbsent(name.toString(), spelled(name) + problem + origin);
                }
              });
    }
    if (!problems.isEmpty()) {
      throw new UnknownPropertiesException(new ArrayList<>(problems.values()));
    }
  }

  /**
   * Why {@code name} (under {@code backpressure}) is not a key of the starter, or {@code null} when
   * it is: its first element that no property of the class at that depth binds, and the nearest
   * valid spelling of the whole key.
   */
  static String problem(ConfigurationPropertyName name) {
    Class<?> bean = BackpressureProperties.class;
    ResolvableType type = ResolvableType.forClass(bean);
    for (int i = 1; i < name.getNumberOfElements(); i++) {
      if (!ResolvableType.NONE.equals(type.asMap())) {
        type = type.asMap().getGeneric(1); // the element is a key of the map
        continue;
      }
      if (!ResolvableType.NONE.equals(type.asCollection())) {
        if (!name.isNumericIndex(i)) {
          return " is not a property of the backpressure starter: "
              + name.chop(i)
              + " is a list, indexed [0], [1], …";
        }
        type = type.asCollection().getGeneric(0);
        continue;
      }
      Class<?> resolved = type.resolve(Object.class);
      if (!isProperties(resolved)) {
        return " is not a property of the backpressure starter: "
            + name.chop(i)
            + " takes a value, not nested keys";
      }
      String element = name.getElement(i, Form.UNIFORM);
      PropertyDescriptor match = null;
      List<String> valid = new ArrayList<>();
      for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(resolved)) {
        if (descriptor.getReadMethod() == null || descriptor.getName().equals("class")) {
          continue;
        }
        String dashed = dashed(descriptor.getName());
        valid.add(dashed);
        if (dashed.replace("-", "").equals(element)) {
          match = descriptor;
        }
      }
      if (match == null) {
        return " is not a property of the backpressure starter; " + nearest(name, i, valid);
      }
      type = ResolvableType.forMethodReturnType(match.getReadMethod());
    }
    return null;
  }

  /** {@code name} as the application spelled it. */
  private static String spelled(ConfigurationPropertyName name) {
    StringBuilder out = new StringBuilder(ROOT.toString());
    append(out, name, 1);
    return out.toString();
  }

  /** Appends {@code name}'s elements from {@code from} on, as the application spelled them. */
  private static void append(StringBuilder out, ConfigurationPropertyName name, int from) {
    for (int j = from; j < name.getNumberOfElements(); j++) {
      String original = name.getElement(j, Form.ORIGINAL);
      boolean bracketed = name.isNumericIndex(j) || original.contains(".");
      out.append(bracketed ? "[" + original + "]" : "." + original);
    }
  }

  /** Whether {@code type} is one of the starter's properties classes (with nested keys). */
  private static boolean isProperties(Class<?> type) {
    return type == BackpressureProperties.class
        || (type.getEnclosingClass() == BackpressureProperties.class && !type.isEnum());
  }

  /** The message part that names the nearest valid spelling of {@code name}'s element {@code i}. */
  private static String nearest(ConfigurationPropertyName name, int i, List<String> valid) {
    String element = name.getElement(i, Form.DASHED);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : valid) {
      int d = distance(element, candidate);
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    String prefix = name.chop(i).toString() + ".";
    if (best == null || bestDistance > Math.max(2, element.length() / 2)) {
      return "the keys under " + prefix + "* are " + valid;
    }
    StringBuilder fixed = new StringBuilder(prefix).append(best);
    append(fixed, name, i + 1);
    return "did you mean " + fixed + "?";
  }

  /** {@code safeWindow} as {@code safe-window}. */
  private static String dashed(String camel) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < camel.length(); i++) {
      char c = camel.charAt(i);
      if (Character.isUpperCase(c)) {
        out.append('-').append(Character.toLowerCase(c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /**
   * The Levenshtein distance: the fewest single-character insertions, deletions and substitutions
   * that turn {@code a} into {@code b}.
   */
  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }

  /**
   * Start-up fails with this when the application sets {@code backpressure.*} keys unknown here.
   */
  static final class UnknownPropertiesException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    UnknownPropertiesException(List<String> problems) {
      super(
          (problems.size() == 1 ? "" : "Unknown backpressure properties:\n  ")
              + String.join("\n  ", problems));
      this.problems = List.copyOf(problems);
    }

    /** One line per unknown key, in key order. */
    List<String> problems() {
      return problems;
    }
  }
}
