"""Sessions: finding transcripts of a repository, caching their parses, mapping their paths, the local
backup."""
