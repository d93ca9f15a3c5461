package io.backpressure.bedrock;

import io.backpressure.mock.MockProvider;
import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClientBuilder;

/** The AWS SDK clients this module's tests gate: pointed at the mock provider, with fake keys. */
final class TestBedrock {

  private TestBedrock() {}

  /** Fake, well-formed static credentials (the SDK signs with them; the mock does not check). */
  static StaticCredentialsProvider credentials() {
    return StaticCredentialsProvider.create(
        AwsBasicCredentials.create("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"));
  }

  /** A Bedrock runtime client's builder in {@code us-east-1} whose endpoint is {@code provider}. */
  static BedrockRuntimeClientBuilder client(MockProvider provider) {
    return BedrockRuntimeClient.builder()
        .region(Region.US_EAST_1)
        .credentialsProvider(credentials())
        .endpointOverride(URI.create(provider.url()));
  }
}
