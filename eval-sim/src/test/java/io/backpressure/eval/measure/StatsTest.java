package io.backpressure.eval.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class StatsTest {

  @Test
  void jainIsOneForEqualValuesAndOneOverNForOneWinner() {
    assertThat(Stats.jain(new double[] {0.7, 0.7, 0.7})).isCloseTo(1.0, within(1e-12));
    assertThat(Stats.jain(new double[] {1, 0, 0})).isCloseTo(1 / 3.0, within(1e-12));
    assertThat(Stats.jain(new double[] {1, 2})).isCloseTo(9 / 10.0, within(1e-12));
    assertThat(Stats.jain(new double[] {})).isNaN();
  }

  @Test
  void percentileIsNearestRank() {
    double[] values = new double[20];
    for (int i = 0; i < 20; i++) {
      values[i] = 20 - i;
    }
    assertThat(Stats.percentile(values, 95)).isEqualTo(19);
    assertThat(Stats.percentile(values, 100)).isEqualTo(20);
    assertThat(Stats.percentile(new double[] {5}, 95)).isEqualTo(5);
    assertThat(Stats.percentile(new double[] {}, 95)).isNaN();
  }

  @Test
  void studentTQuantilesMatchTables() {
    assertThat(Stats.studentT975(1)).isCloseTo(12.7062, within(1e-4));
    assertThat(Stats.studentT975(4)).isCloseTo(2.77645, within(1e-5));
    assertThat(Stats.studentT975(30)).isCloseTo(2.04227, within(1e-5));
  }

  @Test
  void ci95IsTTimesStandardError() {
    Stats.Estimate e = Stats.meanCi95(new double[] {1, 2, 3, 4, 5});
    assertThat(e.mean()).isEqualTo(3.0);
    assertThat(e.ci95()).isCloseTo(2.77645 * Math.sqrt(2.5) / Math.sqrt(5), within(1e-4));
    assertThat(e.n()).isEqualTo(5);
  }

  @Test
  void theRangeIsTheLeastAndGreatestFiniteValue() {
    Stats.Estimate e = Stats.meanCi95(new double[] {2.5, Double.NaN, -1, 7});
    assertThat(e.min()).isEqualTo(-1.0);
    assertThat(e.max()).isEqualTo(7.0);
    assertThat(Stats.meanCi95(new double[] {Double.NaN}).max()).isNaN();
  }

  @Test
  void undefinedValuesAreLeftOutAndOneValueHasNoInterval() {
    Stats.Estimate e = Stats.meanCi95(new double[] {Double.NaN, 4});
    assertThat(e.mean()).isEqualTo(4.0);
    assertThat(e.ci95()).isNaN();
    assertThat(e.n()).isEqualTo(1);
    assertThat(Stats.meanCi95(new double[] {Double.NaN}).mean()).isNaN();
  }
}
