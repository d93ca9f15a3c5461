package io.backpressure.eval.measure;

import java.util.Arrays;

/** Small exact statistics used by the metrics: Jain's index, percentiles, Student-t intervals. */
public final class Stats {
  private Stats() {}

  /**
   * Jain's fairness index {@code (Σx)² / (n Σx²)}: 1 when all values are equal, {@code 1/n} when
   * one value holds everything. NaN for no values; 1 when every value is zero (nobody is favoured).
   */
  static double jain(double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double sum = 0;
    double squares = 0;
    for (double v : values) {
      sum += v;
      squares += v * v;
    }
    return squares == 0 ? 1.0 : sum * sum / (values.length * squares);
  }

  /**
   * The nearest-rank percentile: the smallest value with at least {@code p}% of the values at or
   * below it. NaN for no values. Sorts a copy.
   *
   * @param p in (0, 100]
   */
  static double percentile(double[] values, double p) {
    if (!(p > 0 && p <= 100)) {
      throw new IllegalArgumentException("percentile must be in (0, 100], got " + p);
    }
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, rank - 1)];
  }

  /**
   * The mean of the finite values, the half-width of its two-sided 95 % Student-t interval, {@code
   * t(0.975, n−1) · s / √n}, and the least and greatest value; the half-width is NaN with fewer
   * than two values, all four are NaN with none.
   */
  public static Estimate meanCi95(double[] values) {
    double[] finite = Arrays.stream(values).filter(Double::isFinite).toArray();
    int n = finite.length;
    if (n == 0) {
      return new Estimate(Double.NaN, Double.NaN, 0, Double.NaN, Double.NaN);
    }
    double mean = Arrays.stream(finite).sum() / n;
    double min = Arrays.stream(finite).min().getAsDouble();
    double max = Arrays.stream(finite).max().getAsDouble();
    if (n == 1) {
      return new Estimate(mean, Double.NaN, 1, min, max);
    }
    double ss = 0;
    for (double v : finite) {
      ss += (v - mean) * (v - mean);
    }
    double sd = Math.sqrt(ss / (n - 1));
    return new Estimate(mean, studentT975(n - 1) * sd / Math.sqrt(n), n, min, max);
  }

  /**
   * A mean over repeats with its 95 % half-width and the range of the repeats' values; NaN where
   * undefined.
   */
  public record Estimate(double mean, double ci95, int n, double min, double max) {}

  /**
   * The 0.975 quantile of Student's t with {@code df} degrees of freedom, by bisection on the CDF.
   */
  static double studentT975(int df) {
    if (df < 1) {
      throw new IllegalArgumentException("degrees of freedom must be >= 1, got " + df);
    }
    double lo = 0;
    double hi = 20;
    while (tCdf(hi, df) < 0.975) {
      hi *= 2;
    }
    for (int i = 0; i < 200; i++) {
      double mid = (lo + hi) / 2;
      if (tCdf(mid, df) < 0.975) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return (lo + hi) / 2;
  }

  /** P(T <= t) for t >= 0: {@code 1 − I_x(df/2, 1/2) / 2} with {@code x = df / (df + t²)}. */
  private static double tCdf(double t, int df) {
    double x = df / (df + t * t);
    return 1 - 0.5 * regularizedBeta(x, df / 2.0, 0.5);
  }

  /** The regularized incomplete beta function {@code I_x(a, b)} by its continued fraction. */
  private static double regularizedBeta(double x, double a, double b) {
    if (x <= 0) {
      return 0;
    }
    if (x >= 1) {
      return 1;
    }
    double front =
        Math.exp(
            logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
    if (x < (a + 1) / (a + b + 2)) {
      return front * betaFraction(x, a, b) / a;
    }
    return 1 - front * betaFraction(1 - x, b, a) / b;
  }

  /** Lentz's evaluation of the incomplete beta continued fraction. */
  private static double betaFraction(double x, double a, double b) {
    double tiny = 1e-300;
    double c = 1;
    double d = 1 - (a + b) * x / (a + 1);
    d = 1 / (Math.abs(d) < tiny ? tiny : d);
    double h = d;
    for (int m = 1; m <= 500; m++) {
      int m2 = 2 * m;
      double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
      d = 1 / nonZero(1 + num * d, tiny);
      c = nonZero(1 + num / c, tiny);
      h *= d * c;
      num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
      d = 1 / nonZero(1 + num * d, tiny);
      c = nonZero(1 + num / c, tiny);
      double step = d * c;
      h *= step;
      if (Math.abs(step - 1) < 1e-15) {
        break;
      }
    }
    return h;
  }

  private static double nonZero(double v, double tiny) {
    return Math.abs(v) < tiny ? tiny : v;
  }

  /** Lanczos approximation of {@code ln Γ(x)}, x > 0 (relative error below 1e-14). */
  private static double logGamma(double x) {
    double[] g = {
      57.15623566586292,
      -59.59796035547549,
      14.136097974741746,
      -0.4919138160976202,
      3.399464998481189e-5,
      4.652362892704858e-5,
      -9.837447530487956e-5,
      1.580887032249125e-4,
      -2.1026444172410488e-4,
      2.1743961811521265e-4,
      -1.643181065367639e-4,
      8.441822398385275e-5,
      -2.6190838401581408e-5,
      3.6899182659531625e-6
    };
    double y = x;
    double tmp = x + 5.2421875;
    tmp = (x + 0.5) * Math.log(tmp) - tmp;
    double ser = 0.9999999999999971;
    for (double c : g) {
      ser += c / ++y;
    }
    return tmp + Math.log(2.5066282746310007 * ser / x);
  }
}
