import CinepackRender
import Testing

/// The shard split of spec/farm.md §1, against a direct reading of its rule: segment i of S goes
/// to the shard K with ⌊(K−1)·S/N⌋ ≤ i < ⌊K·S/N⌋.
@Suite struct ShardPlanTests {
    @Test func everyProgramFrameBelongsToExactlyOneShardStartingOnASyncFrame() throws {
        for start in [Int64(0), 7] {
            for frames in [Int64(1), 2, 29, 30, 31, 90, 1001] {
                for interval in [1, 24, 30] {
                    let plan = ShardPlan(program: start..<start + frames, syncInterval: interval)
                    let segments = (frames + Int64(interval) - 1) / Int64(interval)
                    #expect(plan.segmentCount == segments)
                    for n in [1, 2, 3, 4, 7, 64] {
                        var owner = [Int64: Int]()
                        for k in 1...n {
                            let first = segments * Int64(k - 1) / Int64(n), end = segments * Int64(k) / Int64(n)
                            guard first < end else {
                                #expect(throws: FarmError.self) { try plan.shard(k, of: n) }
                                continue
                            }
                            let range = try plan.shard(k, of: n)
                            #expect(range.lowerBound == start + first * Int64(interval))
                            #expect((range.lowerBound - start) % Int64(interval) == 0)
                            for f in range {
                                #expect(owner[f] == nil)
                                owner[f] = k
                            }
                        }
                        #expect(owner.count == Int(frames), "\(frames) frames, interval \(interval), \(n) shards")
                    }
                }
            }
        }
    }

    @Test func framesMustStartAndEndOnSegmentBoundaries() throws {
        let plan = ShardPlan(program: 0..<100, syncInterval: 30)
        #expect(try plan.frames(30..<60, codec: "h264") == 30..<60)
        #expect(try plan.frames(90..<100, codec: "h264") == 90..<100)
        #expect(throws: FarmError.unalignedBoundary(frame: 45, codec: "h264", syncInterval: 30, program: 0..<100)) {
            try plan.frames(45..<60, codec: "h264")
        }
        #expect(throws: FarmError.framesOutsideProgram(90..<101, program: 0..<100)) { try plan.frames(90..<101, codec: "h264") }
        #expect(
            FarmError.unalignedBoundary(frame: 45, codec: "h264", syncInterval: 30, program: 0..<100).description
                == "frame 45 is not a sync-frame boundary for h264 (a sync frame every 30 frames from 0): use 30 or 60")
    }

    @Test func parsesShardAndFrames() throws {
        #expect(try ShardPlan.parseShard("3/4") == (3, 4))
        for bad in ["0/4", "5/4", "4", "a/b", "1/0", "-1/2", "1/2/3"] {
            #expect(throws: FarmError.badShard(bad)) { try ShardPlan.parseShard(bad) }
        }
        #expect(try ShardPlan.parseFrames("0..60") == 0..<60)
        for bad in ["5..5", "6..5", "-1..3", "1-3", "..3"] {
            #expect(throws: FarmError.badFrames(bad)) { try ShardPlan.parseFrames(bad) }
        }
    }

    /// 15 frames in 4 shards: 0..<3, 3..<7, 7..<11, 11..<15.
    @Test func theShardsCoveringAGapAreNamed() {
        let plan = ShardPlan(program: 0..<15, syncInterval: 1)
        #expect(plan.shards(covering: 6..<11, of: 4) == [2, 3])
    }
}
