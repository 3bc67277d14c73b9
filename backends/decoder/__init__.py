"""The GPT-style decoder (models.zoo.decoder) in each framework, written out op by op."""
