import Testing

@Suite struct OwnThreadExecutorTests {
    @Test func offThePoolRunsTheBodyOnItsOwnQueueInTheTestsTask() async {
        #expect(!OwnThreadExecutor.isCurrent)
        let (onOwnQueue, testName) = await offThePool { (OwnThreadExecutor.isCurrent, Test.current?.name) }
        #expect(onOwnQueue)
        #expect(testName == Test.current?.name && testName != nil)
        #expect(!OwnThreadExecutor.isCurrent)
    }
}
