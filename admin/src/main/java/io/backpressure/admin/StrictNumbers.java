package io.backpressure.admin;

import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Number options read as people write them, and nothing else: Java's own parsing would also take
 * {@code 10f}, {@code 0x1p4} or {@code NaN}, which are typos on a command line rather than values.
 * A rejected value is a usage error that picocli reports with the option's name.
 */
final class StrictNumbers {
  private static final Pattern DECIMAL =
      Pattern.compile("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d{1,3})?");
  private static final Pattern INTEGER = Pattern.compile("[+-]?\\d{1,10}");

  private StrictNumbers() {}

  /** A decimal number such as {@code 12000}, {@code 0.5} or {@code 7.2e5}. */
  static final class Decimal implements ITypeConverter<Double> {
    @Override
    public Double convert(String value) {
      if (value == null || !DECIMAL.matcher(value).matches()) {
        throw new TypeConversionException(
            "'" + value + "' is not a decimal number (such as 12000, 0.5 or 7.2e5)");
      }
      return Double.parseDouble(value);
    }
  }

  /** A whole number in decimal digits. */
  static final class Whole implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      if (value == null || !INTEGER.matcher(value).matches()) {
        throw new TypeConversionException("'" + value + "' is not a whole number");
      }
      long parsed = Long.parseLong(value);
      if (parsed < Integer.MIN_VALUE || parsed > Integer.MAX_VALUE) {
        throw new TypeConversionException("'" + value + "' is out of range");
      }
      return (int) parsed;
    }
  }
}
