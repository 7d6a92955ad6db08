"""Prepares moto's standalone S3 server for S3SourceTests: a bucket with one object, and an IAM
user whose access key may read it. Prints the key and secret on one line. moto enforces
authentication after INITIAL_NO_AUTH_ACTION_COUNT requests; this script makes exactly those."""
import socket
import sys
import time
import boto3
from botocore.config import Config

endpoint, bucket, key, path = sys.argv[1:5]
host, port = endpoint.rsplit("/", 1)[-1].split(":")
deadline = time.monotonic() + 60
while True:
    try:
        socket.create_connection((host, int(port)), timeout=2).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("moto did not start")
        time.sleep(0.2)
anonymous = dict(endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="setup", aws_secret_access_key="setup")
iam = boto3.client("iam", **anonymous)
iam.create_user(UserName="imago")
iam.put_user_policy(UserName="imago", PolicyName="all", PolicyDocument='{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}')
created = iam.create_access_key(UserName="imago")["AccessKey"]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  aws_access_key_id=created["AccessKeyId"], aws_secret_access_key=created["SecretAccessKey"],
                  config=Config(request_checksum_calculation="when_required"))
s3.create_bucket(Bucket=bucket)
with open(path, "rb") as f:
    s3.put_object(Bucket=bucket, Key=key, Body=f.read())
print(created["AccessKeyId"], created["SecretAccessKey"])
