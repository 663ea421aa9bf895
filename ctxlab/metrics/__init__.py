"""Quality and accuracy metrics: fact recall, summary ROUGE, probe QA, drift, token estimator error."""
